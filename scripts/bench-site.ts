import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_ROOT, CLI, formatSeconds, log, median, REPO, runNode } from './bench/run.js';
import { editOneMemory, GENERATOR_VERSION, generateSyntheticVault } from './fixtures/synthetic-vault.js';

/**
 * `npm run bench:site`: times `memvault site` (the real CLI, a child process) on
 *
 * 1. the sample vault (the demo's copy, built as of the demo's moment): a cold site, `--runs` times (target ≤ 3 s);
 * 2. a synthetic vault of `--memories` (default 20,000) memories over three years, committed and built: one memory
 *    edited, then `memvault site` (how many pages it rewrote, how long it took; target ≤ 20 pages in ≤ 2 s), and the
 *    same after `memvault build` took the edit into its summaries, package and index.
 *
 * Vaults live in `os.tmpdir()/memvault-bench/site-<n>` and are reused while their marker matches.
 * Usage: node dist/scripts/bench-site.js [--memories 20000] [--runs 5] [--cold] [--skip-sample]
 * (`--cold`: write the large vault's site from scratch even when an earlier run left one.)
 */

const NOW = '2026-11-21T06:00:00Z';
const SAMPLE_NOW = '2026-11-22T06:00:00Z';
const SHAPE = { days: 1095, endDay: '2026-11-20', seed: 20_261_120, pinned: 3 } as const;

interface SiteRun {
  seconds: number;
  /** User + system CPU seconds of the process (GNU time): what the run costs on a machine shared with other work. */
  cpuSeconds: number | null;
  written: number;
  pages: number;
}

function site(root: string): SiteRun {
  const timed = existsSync('/usr/bin/time');
  const args = [CLI, 'site', '--json', '--now', NOW];
  const start = performance.now();
  const child = timed
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
    : spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = (performance.now() - start) / 1000;
  if (child.status !== 0) throw new Error(`memvault site failed in ${root}:\n${child.stderr}`);
  const json = JSON.parse(child.stdout) as { pages: number; written: string[] };
  const [user, system] = (child.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  const cpuSeconds = timed && Number.isFinite(user) && Number.isFinite(system) ? user! + system! : null;
  return { seconds, cpuSeconds, written: json.written.length, pages: json.pages };
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@memvault.invalid', ...args], { cwd, stdio: 'ignore' });
}

function sampleVault(runs: number): SiteRun[] {
  const root = path.join(BENCH_ROOT, 'site-sample');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const name of ['memory.config.yaml', 'memory.config.schema.json', 'vault', 'prompts'])
    cpSync(path.join(REPO, name), path.join(root, name), { recursive: true });
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'The sample vault');
  runNode([CLI, 'build', '--now', SAMPLE_NOW], root);
  const samples: SiteRun[] = [];
  for (let i = 0; i < runs; i++) {
    rmSync(path.join(root, 'site'), { recursive: true, force: true });
    samples.push(site(root));
  }
  return samples;
}

async function largeVault(
  memories: number,
  runs: number,
  cold: boolean,
): Promise<{ first: SiteRun; reused: boolean; edit: SiteRun[]; editBuilt: SiteRun[] }> {
  const root = path.join(BENCH_ROOT, `site-${memories}`);
  const marker = path.join(root, '.synthetic-site.json');
  const wanted = JSON.stringify({ memories, ...SHAPE, generator: GENERATOR_VERSION });
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== wanted) {
    rmSync(root, { recursive: true, force: true });
    log(`generating ${memories} memories in ${root} …`);
    generateSyntheticVault(root, { memories, ...SHAPE });
    writeFileSync(path.join(root, '.gitignore'), '.memvault/\nsite/\n.synthetic-site.json\n');
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'The synthetic vault');
    log('building it (cold) …');
    runNode([CLI, 'build', '--now', NOW], root);
    writeFileSync(marker, wanted);
  }
  // A cold site of 20,000 memories takes minutes on a busy machine: one written by an earlier run is brought up to date
  // instead (reported as such), unless --cold.
  const reuse = !cold && existsSync(path.join(root, 'site', '.memvault-site.json'));
  if (!reuse) rmSync(path.join(root, 'site'), { recursive: true, force: true });
  log(reuse ? 'bringing the site of an earlier run up to date …' : 'cold site …');
  const first = site(root);
  const edit: SiteRun[] = [];
  const editBuilt: SiteRun[] = [];
  for (let i = 0; i < runs; i++) {
    await editOneMemory(root);
    edit.push(site(root));
    await editOneMemory(root);
    runNode([CLI, 'build', '--no-commit', '--now', NOW], root);
    editBuilt.push(site(root));
  }
  return { first, reused: reuse, edit, editBuilt };
}

function summary(label: string, runs: readonly SiteRun[]): string {
  const seconds = runs.map((r) => r.seconds);
  const written = runs.map((r) => r.written);
  const cpu = runs.map((r) => r.cpuSeconds).filter((c): c is number => c !== null);
  const cpuText = cpu.length > 0 ? `, CPU median ${formatSeconds(median(cpu))} (${cpu.map((c) => c.toFixed(2)).join(', ')} s)` : '';
  return `${label}: wall median ${formatSeconds(median(seconds))} (${seconds.map((s) => s.toFixed(2)).join(', ')} s)${cpuText}, pages written ${written.join(', ')} of ${runs[0]?.pages ?? 0}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      memories: { type: 'string', default: '20000' },
      runs: { type: 'string', default: '5' },
      cold: { type: 'boolean', default: false },
      'skip-sample': { type: 'boolean', default: false },
    },
  });
  const memories = Number(values.memories);
  const runs = Number(values.runs);
  log(
    `load: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.cpus().length} cores`,
  );
  if (!values['skip-sample']) console.log(summary('sample vault, cold site', sampleVault(runs)));
  const large = await largeVault(memories, runs, values.cold === true);
  console.log(summary(`${memories} memories, ${large.reused ? 'site of an earlier run brought up to date' : 'cold site'}`, [large.first]));
  console.log(summary(`${memories} memories, one memory edited`, large.edit));
  console.log(summary(`${memories} memories, one memory edited, then built`, large.editBuilt));
  log(
    `load: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

await main();
