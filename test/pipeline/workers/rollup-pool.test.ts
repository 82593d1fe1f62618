import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSyntheticVault } from '../../../scripts/fixtures/synthetic-vault.js';
import { build } from '../../../src/pipeline/build.js';
import { MIN_JOBS_FOR_STARTED_WORKERS, MIN_JOBS_FOR_WORKERS } from '../../../src/pipeline/workers/rollup-pool.js';
import { MIN_FILES_FOR_WORKERS } from '../../../src/load/parse-pool.js';
import { CLI } from '../../helpers/project.js';
import { removeStateStore } from '../../helpers/state-store.js';

const NOW = '2026-03-15T06:00:00Z';

/** Every generated file under the vault (memories excluded), path → content. */
function outputs(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const vault = path.join(root, 'vault');
  for (const file of readdirSync(vault, { recursive: true }).map(String).sort()) {
    if (file.includes(`${path.sep}memories${path.sep}`) || !/\.(md|json)$/.test(file)) continue;
    out.set(file, readFileSync(path.join(vault, file), 'utf8'));
  }
  return out;
}

let workerRoot: string;
let inProcessRoot: string;
beforeAll(() => {
  workerRoot = mkdtempSync(path.join(os.tmpdir(), 'memvault-pool-'));
  // Seven weeks (late January to mid-March, two monthlies): just over MIN_FILES_FOR_WORKERS memories and over
  // MIN_JOBS_FOR_WORKERS dailies (46), each tier above with fewer jobs. A bigger vault adds no path, only CPU.
  generateSyntheticVault(workerRoot, { memories: 304, days: 48, endDay: '2026-03-14', seed: 7, pinned: 2 });
  inProcessRoot = mkdtempSync(path.join(os.tmpdir(), 'memvault-pool-'));
  cpSync(workerRoot, inProcessRoot, { recursive: true });
});
afterAll(() => {
  rmSync(workerRoot, { recursive: true, force: true });
  rmSync(inProcessRoot, { recursive: true, force: true });
});

describe('parsing and rollups on the build worker threads', () => {
  it('write byte for byte what the in-process parse and rollups write', async () => {
    const cli = spawnSync(process.execPath, [CLI, 'build', '--now', NOW, '--json', '--no-commit'], { cwd: workerRoot, encoding: 'utf8' });
    expect(cli.status, cli.stderr).toBe(0);
    type Report = {
      stats: { parsed: number; worker_parses: number; worker_rollups: number };
      streams: { tiers: Record<'daily' | 'weekly' | 'monthly' | 'longterm', { created: number }> }[];
    };
    const report = JSON.parse(cli.stdout) as Report;
    const tiers = report.streams[0]!.tiers;
    expect(tiers.daily.created).toBeGreaterThanOrEqual(MIN_JOBS_FOR_WORKERS);
    expect(tiers.weekly.created).toBeLessThan(MIN_JOBS_FOR_WORKERS);
    expect(tiers.weekly.created).toBeGreaterThanOrEqual(MIN_JOBS_FOR_STARTED_WORKERS);
    expect(tiers.monthly.created).toBeGreaterThan(0);
    // The shipped CLI (the bundle, with its own worker entry) parsed the memories on the workers, then made the dailies there, and every tier above
    // too: too few jobs to start workers for, but they were running already.
    expect(report.stats.parsed).toBeGreaterThanOrEqual(MIN_FILES_FOR_WORKERS);
    expect(report.stats.worker_parses).toBe(report.stats.parsed);
    expect(report.stats.worker_rollups).toBe(tiers.daily.created + tiers.weekly.created + tiers.monthly.created + tiers.longterm.created);

    // The TypeScript sources under vitest have no compiled worker: everything in-process.
    const parseProgress: [number, number][] = [];
    const inProcess = await build({
      root: inProcessRoot,
      now: new Date(NOW),
      commit: false,
      onParse: (done, total) => parseProgress.push([done, total]),
    });
    expect(inProcess.stats.workerParses).toBe(0);
    // Parse progress: from 0 to every file, in steps, never backwards.
    const parsed = inProcess.stats.parsed;
    expect(parseProgress[0]).toEqual([0, parsed]);
    expect(parseProgress.at(-1)).toEqual([parsed, parsed]);
    expect(parseProgress.length).toBeGreaterThan(3);
    for (let i = 1; i < parseProgress.length; i++) expect(parseProgress[i]![0]).toBeGreaterThan(parseProgress[i - 1]![0]);
    expect(inProcess.stats.workerRollups).toBe(0);

    // `status` on a cold parse cache parses on worker threads too, and reports what it reports from the cache the build saved
    // (status itself saves none: a second cold run would only repeat the first).
    const status = (): string => {
      const run = spawnSync(process.execPath, [CLI, 'status', '--json', '--now', NOW], { cwd: workerRoot, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      return run.stdout;
    };
    const warm = status();
    removeStateStore(workerRoot);
    const cold = status();
    expect(JSON.parse(cold).streams[0].memories).toBeGreaterThanOrEqual(MIN_FILES_FOR_WORKERS);
    expect(cold).toBe(warm);

    const expected = outputs(inProcessRoot);
    const actual = outputs(workerRoot);
    expect([...actual.keys()]).toEqual([...expected.keys()]);
    for (const [file, text] of expected) expect(actual.get(file), file).toBe(text);
    // Two builds and two status runs of 304 memories: over a minute when the 2 shared cores are busy.
  }, 240_000);
});
