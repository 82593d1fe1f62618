import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { createProject, memory, readJsonFile, readText, removeProject, runCli, runCliJson } from '../helpers/project.js';

/**
 * duplicate_of and forgetting as a user meets them, through the CLI: build
 * warns of the copies, `consolidate --apply` marks them, the rebuild leaves
 * them out of the summaries (nothing deleted), removing the mark brings a copy
 * back; old unused memories are listed as forgotten until a retrieval.
 * `consolidate`, `zoom` and `status` run the CLI; the builds, checked by their
 * `--json` report and files, run in-process (`buildHere`, no CLI start each).
 */

const scheduler =
  'The scheduler failed during the nightly job because the retry queue filled up. We raised the queue limit to 5000, ' +
  'added an alert on queue depth, and moved the heavy export to Sunday. Ana owns the follow-up on the export timings.';
const database =
  'Postgres vacuum stalled on the events table after the bulk import; autovacuum thresholds were lowered for that ' +
  'table and a weekly manual vacuum was scheduled. Bruno checks the bloat report every Monday morning.';
const NOW = '2026-03-10T12:00:00Z';
const LATER = '2026-09-01T12:00:00Z';

const dailyTexts = (root: string): string =>
  readdirSync(path.join(root, 'vault/main/daily'))
    .sort()
    .map((name) => readText(root, `vault/main/daily/${name}`))
    .join('\n');
const count = (text: string, phrase: string): number => text.split(phrase).length - 1;
/** The build in this process, its report as `memvault build --json` prints it. */
const buildHere = async (root: string, now: string): Promise<{ json: any }> => ({
  json: JSON.parse(JSON.stringify(await build({ root, now: new Date(now) }))),
});

describe('duplicate_of and forgetting, applied', () => {
  let root: string;
  const copyPath = 'vault/main/memories/2026-03-04-scheduler-again.md';
  const files = {
    'vault/main/memories/2026-03-02-scheduler.md': memory({ date: '2026-03-02T09:00:00Z', title: 'Scheduler', body: scheduler }),
    // A copy on a day with another memory: it leaves the day's sources.
    [copyPath]: memory({ date: '2026-03-04T09:00:00Z', title: 'Scheduler again', body: `${scheduler} Next check on Friday.` }),
    'vault/main/memories/2026-03-04-billing.md': memory({
      date: '2026-03-04T11:00:00Z',
      title: 'Billing',
      body: 'Billing moved to Stripe webhooks; the old cron is gone.',
    }),
    'vault/main/memories/2026-03-03-vacuum.md': memory({ date: '2026-03-03T09:00:00Z', title: 'Vacuum', body: database }),
    // A copy alone on its day: the day keeps a daily that only mentions it.
    'vault/main/memories/2026-03-05-vacuum-copy.md': memory({ date: '2026-03-05T09:00:00Z', title: 'Vacuum copy', body: database }),
  };
  let first: { json: any };
  beforeAll(async () => {
    root = createProject(files);
    first = await buildHere(root, NOW);
  }, 60_000);
  afterAll(() => removeProject(root));

  it('build warns of the near-duplicates of the days it summarized, naming the fix', () => {
    const warnings = first.json.diagnostics.filter((d: { rule: string }) => d.rule === 'memory/near-duplicate');
    expect(warnings.map((d: { path: string }) => d.path).sort()).toEqual([
      'main/memories/2026-03-04-scheduler-again.md',
      'main/memories/2026-03-05-vacuum-copy.md',
    ]);
    expect(warnings[0].hint).toContain('memvault consolidate --stream main --apply');
    expect(count(dailyTexts(root), 'retry queue filled up')).toBe(2);
  });

  it('consolidate --apply, then a rebuild: summaries name each note once, nothing is deleted, zoom and status show the marks', async () => {
    await runCliJson(['consolidate', '--apply', '--json'], { cwd: root });
    const second = await buildHere(root, NOW);
    expect(second.json.diagnostics.filter((d: { rule: string }) => d.rule === 'memory/near-duplicate')).toEqual([]);
    const dailies = dailyTexts(root);
    expect(count(dailies, 'retry queue filled up')).toBe(1);
    expect(count(dailies, 'autovacuum thresholds')).toBe(1);
    expect(readText(root, 'vault/main/daily/2026-03-05.md')).toContain('A copy of `2026-03-03-vacuum` (2026-03-03)');
    expect(readText(root, 'vault/main/daily/2026-03-04.md')).toContain('Stripe webhooks');
    expect(count(readText(root, 'vault/main/weekly/2026-W10.md'), 'retry queue filled up')).toBe(1);
    expect(readdirSync(path.join(root, 'vault/main/memories')).sort()).toEqual(
      Object.keys(files)
        .map((f) => path.basename(f))
        .sort(),
    );
    const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
    expect(manifest.duplicates).toEqual([
      { id: '2026-03-04-scheduler-again', duplicate_of: '2026-03-02-scheduler' },
      { id: '2026-03-05-vacuum-copy', duplicate_of: '2026-03-03-vacuum' },
    ]);
    const zoom = await runCli(['zoom', '2026-03-04', '--now', NOW], { cwd: root });
    expect(zoom.stdout).toContain('duplicate of `2026-03-02-scheduler`');
    expect(zoom.stdout).toContain('Next check on Friday.');
    const status = await runCliJson(['status', '--now', NOW, '--json'], { cwd: root });
    expect(status.json.streams[0].maintenance.duplicates.count).toBe(2);
    expect(status.json.streams[0].maintenance.forgotten.count).toBe(0);
  }, 60_000);

  it('removing the mark brings the copy back into its daily', async () => {
    writeFileSync(path.join(root, copyPath), files[copyPath]);
    await buildHere(root, NOW);
    expect(readText(root, 'vault/main/daily/2026-03-04.md')).toContain('Next check on Friday.');
    expect(count(dailyTexts(root), 'retry queue filled up')).toBe(2);
  }, 60_000);

  it('months later the unused notes are forgotten (manifest, status) until a retrieval brings one back', async () => {
    const later = await runCliJson(['status', '--now', LATER, '--json'], { cwd: root });
    const forgotten = later.json.streams[0].maintenance.forgotten.memories.map((m: { id: string }) => m.id).sort();
    // Copies are listed as duplicates, not as forgotten.
    expect(forgotten).toEqual(['2026-03-02-scheduler', '2026-03-03-vacuum', '2026-03-04-billing', '2026-03-04-scheduler-again']);
    await buildHere(root, LATER);
    const manifest = readJsonFile(root, 'vault/main/UPLOAD_PACKAGE.manifest.json');
    expect([...manifest.forgotten].sort()).toEqual(forgotten);
    const text = await runCli(['status', '--now', LATER], { cwd: root });
    expect(text.stdout).toContain('forgotten: 4 memories no retrieval used for 90 days');

    // A zoom serves the memories of 2026-03-02: that retrieval brings the scheduler note back.
    await runCli(['zoom', '2026-03-02', '--now', LATER], { cwd: root });
    const after = await runCliJson(['status', '--now', LATER, '--json'], { cwd: root });
    expect(after.json.streams[0].maintenance.forgotten.memories.map((m: { id: string }) => m.id).sort()).toEqual([
      '2026-03-03-vacuum',
      '2026-03-04-billing',
      '2026-03-04-scheduler-again',
    ]);
  }, 90_000);
});
