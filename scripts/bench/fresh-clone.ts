import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, formatMb, formatSeconds, log, runNode, type Sample, type Stats, stats } from './run.js';

/** The fresh clone's own count of files, files read and bodies parsed (the last run's; every run is the same). */
export interface FreshCloneCounts {
  files: number;
  read: number;
  parsed: number;
}

/** The day after the synthetic vault's last one, and a build the morning after it: one new daily. */
const FRESH_DAY = '2026-11-21';
export const FRESH_NOW = '2026-11-22T06:00:00Z';
const FRESH_RUNS = 5;

/**
 * The nightly job: a clean checkout of the committed, built vault (no
 * `.memvault` parse cache), three new memories of the next day, one build.
 * The clone is made outside the timing; the build's own report says how many
 * files it read and how many bodies it parsed.
 */
export function benchFreshClone(repo: string): { stats: Stats; counts: FreshCloneCounts } {
  const clone = `${repo}-clone`;
  let counts: FreshCloneCounts = { files: 0, read: 0, parsed: 0 };
  const samples: Sample[] = [];
  // The committed record (on by default) is what lets a clone skip the files it does not summarize: say whether it is there.
  const shards = spawnSync('git', ['ls-files', 'vault/.memvault-record'], { cwd: repo, encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  log(
    `  fresh clone of ${repo}: ${shards.length > 0 ? `committed record of ${shards.length} shards` : 'no committed record (every file is read)'}`,
  );
  for (let i = 1; i <= FRESH_RUNS; i++) {
    rmSync(clone, { recursive: true, force: true });
    const cloned = spawnSync('git', ['clone', '-q', repo, clone], { encoding: 'utf8' });
    if (cloned.status !== 0) throw new Error(`git clone ${repo} failed: ${cloned.stderr}`);
    const folder = path.join(clone, 'vault', 'main', 'memories', FRESH_DAY.slice(0, 4), FRESH_DAY.slice(5, 7));
    mkdirSync(folder, { recursive: true });
    for (const n of [1, 2, 3]) {
      const body = `Moved invoice export ${n} to the queue worker; p99 stayed under ${200 + n}ms (#${7000 + n}).`;
      writeFileSync(
        path.join(folder, `${FRESH_DAY}-nightly-${n}.md`),
        `---\ndate: ${FRESH_DAY}T1${n}:00:00Z\ntitle: Nightly ${n}\n---\n\n${body}\n`,
      );
    }
    const { sample, stdout } = runNode([CLI, 'build', '--now', FRESH_NOW, '--json', '--no-commit'], clone);
    const report = JSON.parse(stdout) as { stats: FreshCloneCounts };
    counts = { files: report.stats.files, read: report.stats.read, parsed: report.stats.parsed };
    log(
      `  fresh clone ${i}/${FRESH_RUNS}: ${formatSeconds(sample.seconds)}, ${formatMb(sample.peakRssMb)}, ${counts.read} read and ${counts.parsed} parsed of ${counts.files} files`,
    );
    samples.push(sample);
  }
  rmSync(clone, { recursive: true, force: true });
  return { stats: stats(samples), counts };
}
