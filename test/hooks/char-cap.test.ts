import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitToCharacters } from '../../src/hooks/session-start.js';
import type { AssembledContext } from '../../src/read/context/assemble.js';
import { createProject, memory, removeProject, runCli } from '../helpers/project.js';
import { spawnCli } from '../helpers/spawn-cli.js';

/**
 * What `memvault hook session-start` prints fits the agent's cap on hook output (Claude Code keeps at most 10,000
 * characters of a hook's added context; memvault's default cap is 9,000, `hooks.max_chars`): on the sample vault and on
 * a dense one, at startup and after a compaction, whatever the token budget, most important first, ending with how to
 * ask for more.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE_NOW = '2026-11-22T06:00:00Z';
const FOOTER = /More on request: the memvault MCP tools `search`, `zoom` and `context`.*\n$/;

function hook(root: string, source: 'startup' | 'compact', now: string) {
  const stdin = JSON.stringify({ hook_event_name: 'SessionStart', source, cwd: root });
  return spawnCli(['hook', 'session-start'], { cwd: root, env: { MEMVAULT_NOW: now }, stdin });
}

describe('session-start within the character cap', () => {
  let sample: string;
  let dense: string;

  beforeAll(async () => {
    // The sample vault, built as `npm run demo` builds it (the README's first command).
    sample = mkdtempSync(path.join(os.tmpdir(), 'memvault-e2e-'));
    cpSync(path.join(REPO, 'vault'), path.join(sample, 'vault'), { recursive: true });
    cpSync(path.join(REPO, 'memory.config.yaml'), path.join(sample, 'memory.config.yaml'));
    const built = await runCli(['build', '--no-commit', '--now', SAMPLE_NOW], { cwd: sample });
    expect(built.code, built.stderr).toBe(0);

    // A dense vault: 60 pinned memories (the critical tier takes every pinned one) are far more than 9,000 characters.
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`vault/main/memories/m${i}.md`] = memory({
        date: `2026-03-${String(1 + (i % 19)).padStart(2, '0')}T1${i % 10}:00:00Z`,
        title: `Rule ${i}`,
        importance: 'pinned',
        body: `Rule ${i}: service-${i} deploys through queue q${i * 7}, owner team-${i % 9}, budget ${i * 13} ms, ticket OPS-${1000 + i}. ${'Reviewed latency, retries and alerts before each release. '.repeat(4)}`,
      });
    dense = createProject(files, 'timezone: UTC\n');
  });
  afterAll(() => {
    removeProject(sample);
    removeProject(dense);
  });

  it('prints at most 9,000 characters on the sample vault, at startup and after a compaction', async () => {
    for (const source of ['startup', 'compact'] as const) {
      const result = await hook(sample, source, SAMPLE_NOW);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.length).toBeLessThanOrEqual(9000);
      expect(result.stdout).toMatch(/^Project memory from memvault/);
      expect(result.stdout).toContain('## Critical');
      expect(result.stdout).toMatch(FOOTER);
    }
  });

  it('keeps a dense vault within the cap and the configured one, the critical tier first', async () => {
    const now = '2026-03-20T12:00:00Z';
    const wide = await hook(dense, 'startup', now);
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout.length).toBeLessThanOrEqual(9000);
    // The cap is spent, not thrown away: more than half of it holds memory.
    expect(wide.stdout.length).toBeGreaterThan(4500);
    expect(wide.stdout.indexOf('## Critical')).toBeLessThan(200);
    expect(wide.stdout).toMatch(FOOTER);

    writeFileSync(path.join(dense, 'memory.config.yaml'), 'timezone: UTC\nhooks:\n  max_chars: 2500\n');
    const narrow = await hook(dense, 'compact', now);
    expect(narrow.code, narrow.stderr).toBe(0);
    expect(narrow.stdout.length).toBeLessThanOrEqual(2500);
    expect(narrow.stdout).toMatch(/### .*Rule \d+/);
    expect(narrow.stdout).toMatch(FOOTER);
  });
});

describe('fitToCharacters', () => {
  const frame = { header: 'H\n\n', footer: '\nF\n', maxChars: 1000 };
  const context = (text: string): { result: AssembledContext; served: [] } => ({
    result: { context: text, token_count: 0, budget: 0, tiers: {} as never, allowance: {} as never, items: [] },
    served: [],
  });

  it('shrinks the token budget until the text fits, keeping whole lines', () => {
    const budgets: number[] = [];
    const fitted = fitToCharacters(
      (tokens) => {
        budgets.push(tokens);
        return context('word word word\n'.repeat(Math.floor((tokens * 4) / 15)));
      },
      frame,
      8000,
    );
    expect(fitted.text.length).toBeLessThanOrEqual(1000);
    expect(fitted.text.length).toBeGreaterThan(800);
    expect(fitted.text).toMatch(/^H\n\n(word word word\n)+\nF\n$/);
    expect(budgets[0]).toBe(8000);
    expect(budgets.length).toBeLessThanOrEqual(5);
  });

  it('cuts a text that does not shrink at a line boundary, the footer last', () => {
    const fitted = fitToCharacters(() => context(`${'x'.repeat(40)}\n`.repeat(100)), frame, 8000);
    expect(fitted.text.length).toBeLessThanOrEqual(1000);
    expect(fitted.text).toMatch(/x\n…\n\nF\n$/);
  });

  it('says there are no memories yet when the context is empty', () => {
    expect(fitToCharacters(() => context(''), frame, 8000).text).toContain('no memories yet');
  });
});
