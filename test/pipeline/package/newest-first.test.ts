import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/pipeline/package/index.js';
import { build } from '../../../src/pipeline/build.js';
import { addDays } from '../../../src/time/periods.js';
import { generateAgentSessions } from '../../../scripts/eval/agent-sessions.js';
import { workItemIds } from '../../../scripts/eval/agent-eval.js';
import { createProject, removeProject, runCli } from '../../helpers/project.js';

/**
 * A package that spends its budget newest-first (issue 27, item 3): a week
 * of generated Claude Code sessions, ingested with the real CLI, more history
 * than the package's 4,000 tokens. The package uses at least 90 % of its
 * budget, buys detail back beyond the full-detail band, and the manifest
 * says why each item is shown as it is.
 */

/** Ingest and build take about 3 s on an idle machine: slow-tagged; the order itself is refine-order.test.ts. */
const SLOW = process.env.MEMVAULT_SLOW === '1';
const MAX_TOKENS = 4000;
const DAYS = 7;
let root: string | undefined;
let manifest: Manifest;
let text: string;
let lastDay: string;

beforeAll(async () => {
  if (!SLOW) return;
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

describe.skipIf(!SLOW)('a package of more history than fits', () => {
  it('uses at least 90 % of max_tokens', () => {
    expect(manifest.tokens).toBeLessThanOrEqual(MAX_TOKENS);
    expect(manifest.tokens / MAX_TOKENS).toBeGreaterThanOrEqual(0.9);
  });

  it('buys detail back beyond the full-detail band (the order itself: refine-order.test.ts)', () => {
    const bought = manifest.items.filter(
      (item) => item.type === 'memory' && item.start < manifest.bands.rawFrom && item.status !== 'left-out',
    );
    expect(bought.length).toBeGreaterThan(0);
    // A day shown in part shows at least one memory in full.
    for (const day of new Set(bought.filter((item) => item.reason?.startsWith('opening only')).map((item) => item.start)))
      expect(
        bought.some((item) => item.start === day && item.reason?.startsWith('finer than its band')),
        day,
      ).toBe(true);
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

describe('three weeks of agent sessions at the default budget (the eval scenario)', () => {
  it.skipIf(!SLOW)(
    "fills at least 90 % of the package and brings at least 60 % of the last seven days' work-item ids",
    async () => {
      const project = createProject({}, 'timezone: UTC\n');
      try {
        const logs = generateAgentSessions();
        mkdirSync(path.join(project, 'logs'));
        for (const log of logs) writeFileSync(path.join(project, 'logs', log.name), log.text);
        const ingest = await runCli(['ingest', ...logs.map((log) => `logs/${log.name}`)], { cwd: project });
        expect(ingest.code, ingest.stderr).toBe(0);
        const last = logs[logs.length - 1]!.day;
        await build({ root: project, now: new Date(`${addDays(last, 1)}T07:00:00Z`), commit: false });
        const packaged = JSON.parse(readFileSync(path.join(project, 'vault/main/UPLOAD_PACKAGE.manifest.json'), 'utf8')) as Manifest;
        expect(packaged.tokens / packaged.budget.max_tokens).toBeGreaterThanOrEqual(0.9);
        const inPackage = workItemIds(readFileSync(path.join(project, 'vault/main/UPLOAD_PACKAGE.md'), 'utf8'));
        const since = addDays(last, -6);
        const recent = new Set(logs.filter((log) => log.day >= since).flatMap((log) => log.ids));
        expect([...recent].filter((id) => inPackage.has(id)).length / recent.size).toBeGreaterThanOrEqual(0.6);
      } finally {
        removeProject(project);
      }
    },
    300_000,
  );
});
