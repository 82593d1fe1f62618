import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/pipeline/package.js';
import { build } from '../../src/pipeline/build.js';
import { addDays } from '../../src/time/periods.js';
import { generateAgentSessions } from '../../scripts/eval/agent-sessions.js';
import { workItemIds } from '../../scripts/eval/agent-eval.js';
import { createProject, removeProject, runCli } from '../helpers/project.js';

/**
 * A package that spends its budget newest-first (issue 27, item 3): a week
 * of generated Claude Code sessions, ingested with the real CLI, more history
 * than the package's 4,000 tokens. The package uses at least 90 % of its
 * budget, every day shown in full is newer than every day shown as a summary,
 * and the manifest says why each item is shown as it is.
 */

const MAX_TOKENS = 4000;
const DAYS = 7;
let root: string;
let manifest: Manifest;
let text: string;
let lastDay: string;

beforeAll(async () => {
  root = createProject({}, `timezone: UTC\nupload: { max_tokens: ${MAX_TOKENS}, max_bytes: 40000 }\n`);
  const logs = generateAgentSessions({ days: DAYS });
  mkdirSync(path.join(root, 'logs'));
  for (const log of logs) writeFileSync(path.join(root, 'logs', log.name), log.text);
  const ingest = await runCli(['ingest', ...logs.map((log) => `logs/${log.name}`)], { cwd: root });
  expect(ingest.code, ingest.stderr).toBe(0);
  lastDay = logs[logs.length - 1]!.day;
  await build({ root, now: new Date(`${addDays(lastDay, 1)}T07:00:00Z`), commit: false });
  manifest = JSON.parse(readFileSync(path.join(root, 'vault/main/UPLOAD_PACKAGE.manifest.json'), 'utf8')) as Manifest;
  text = readFileSync(path.join(root, 'vault/main/UPLOAD_PACKAGE.md'), 'utf8');
}, 120_000);

afterAll(() => removeProject(root));

describe('a package of more history than fits', () => {
  it('uses at least 90 % of max_tokens', () => {
    expect(manifest.tokens).toBeLessThanOrEqual(MAX_TOKENS);
    expect(manifest.tokens / MAX_TOKENS).toBeGreaterThanOrEqual(0.9);
  });

  it('shows a recent day in full before an old day in full', () => {
    const history = manifest.items.filter((item) => item.type !== 'pinned' && item.status !== 'left-out');
    const summarized = history.filter((item) => item.type === 'summary').map((item) => item.end);
    const memoryDays = new Map<string, string[]>();
    for (const item of history.filter((i) => i.type === 'memory'))
      memoryDays.set(item.start, [...(memoryDays.get(item.start) ?? []), item.status]);
    const fullDays = [...memoryDays].filter(([, statuses]) => statuses.every((s) => s === 'included')).map(([day]) => day);
    expect(summarized.length).toBeGreaterThan(0);
    // Detail bought back beyond the full-detail band: the day before the last, at least in part.
    expect(memoryDays.has(addDays(lastDay, -1))).toBe(true);
    const newestSummarized = summarized.sort().at(-1)!;
    for (const day of fullDays) expect(day > newestSummarized, `${day} in full, ${newestSummarized} summarized`).toBe(true);
    // A day shown in part sits between the summaries and the days in full.
    for (const [day, statuses] of memoryDays)
      if (statuses.some((s) => s === 'degraded')) {
        expect(day > newestSummarized && day <= fullDays.sort()[0]!).toBe(true);
        expect(statuses, 'a day in part shows its newest memories in full').toContain('included');
      }
  });

  it('says in the manifest why each item is shown as it is', () => {
    for (const item of manifest.items.filter((i) => i.status !== 'included')) expect(item.reason, item.id).toBeTruthy();
    expect(manifest.items.some((item) => item.reason?.startsWith('finer than its band'))).toBe(true);
  });

  it('has one heading per run of memories in full, none twice', () => {
    const headings = text.split('\n').filter((line) => line.startsWith('## '));
    expect(new Set(headings).size).toBe(headings.length);
    expect(text).toContain('## Memories in full detail');
  });
});
