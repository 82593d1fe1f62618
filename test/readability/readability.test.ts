import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Readability } from '../../src/llm/extractive/standalone.js';
import { build } from '../../src/pipeline/build.js';
import { createProject, removeProject, runCli } from '../helpers/project.js';
import { measureProject, shares, summaryFiles } from './measure.js';

/**
 * Readability of what the offline summarizer writes, end to end: the sample
 * vault (built into a temporary copy) and real Claude Code log shapes
 * (test/fixtures/claude-code, ingested then built). Of all summary units
 * (bullets and paragraphs of dailies, weeklies, monthlies, long-term and the
 * package's summaries), tool-call lines must be 0 %; dangling lead-ins,
 * openings with an unresolved reference and fragments of fewer than four
 * words at most 1 % each. Figures are in the README ("Retention"). The
 * builds are checked by their files: they run in-process (`ingest` runs the CLI).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOGS = fileURLToPath(new URL('../fixtures/claude-code/', import.meta.url));
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) removeProject(root);
});

function expectReadable(r: Readability): void {
  const share = shares(r);
  const show = (kind: string): string[] => r.examples.filter((e) => e.kind === kind).map((e) => e.text);
  expect(r.toolCalls, `tool-call lines: ${show('tool-call').join(' | ')}`).toBe(0);
  expect(share.leadIns, `dangling lead-ins: ${show('lead-in').join(' | ')}`).toBeLessThanOrEqual(0.01);
  expect(share.references, `unresolved references: ${show('reference').join(' | ')}`).toBeLessThanOrEqual(0.01);
  expect(share.fragments, `fragments: ${show('fragment').join(' | ')}`).toBeLessThanOrEqual(0.01);
}

describe('readability of the sample vault', () => {
  let root: string;
  beforeAll(async () => {
    root = createProject({}, readFileSync(path.join(ROOT, 'memory.config.yaml'), 'utf8'));
    roots.push(root);
    cpSync(path.join(ROOT, 'vault'), path.join(root, 'vault'), { recursive: true });
    await build({ root, now: new Date('2026-11-22T06:00:00Z'), commit: false });
  }, 240_000);

  it('writes summary units that stand alone', () => {
    const r = measureProject(root);
    expect(summaryFiles(root).some((file) => file.endsWith('UPLOAD_PACKAGE.md'))).toBe(true);
    expect(r.units).toBeGreaterThan(500);
    expectReadable(r);
  });
});

describe('readability of summaries of Claude Code sessions', () => {
  let root: string;
  beforeAll(async () => {
    root = createProject({}, 'timezone: Europe/Berlin\n');
    roots.push(root);
    mkdirSync(path.join(root, 'logs'));
    cpSync(LOGS, path.join(root, 'logs'), { recursive: true });
    const files = ['v1-todowrite.jsonl', 'v2-session.jsonl', '7d3c1f0a-52b4-4e8e-9c61-0b2f5e8a9d41/subagents/agent-a1b2c3d.jsonl'];
    const ingest = await runCli(['ingest', ...files.map((file) => `logs/${file}`)], { cwd: root });
    expect(ingest.code, ingest.stderr).toBe(0);
    await build({ root, now: new Date('2026-03-12T08:00:00Z'), commit: false });
  }, 240_000);

  it('never quotes a tool call, and every unit stands alone', () => {
    const r = measureProject(root);
    expect(r.units).toBeGreaterThan(10);
    expectReadable(r);
  });

  it('keeps the full transcripts beside the distilled memories', () => {
    const transcript = readFileSync(path.join(root, 'vault/main/transcripts/7d3c1f0a-52b4-4e8e-9c61-0b2f5e8a9d41.md'), 'utf8');
    expect(transcript).toContain(
      '- `Bash` `npx vitest run test/webhooks` → error: FAIL test/webhooks/stripe.test.ts > skips a retried event',
    );
  });
});
