import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listMarkdownFiles } from '../src/vault/scan.js';
import { benchFreshClone, FRESH_NOW, type FreshCloneCounts } from './bench/fresh-clone.js';
import {
  BENCH_ROOT,
  CLI,
  formatMb,
  formatSeconds,
  log,
  median,
  NOW,
  REPO,
  repeat,
  runNode,
  type Sample,
  type Stats,
  stats,
  timeNode,
} from './bench/run.js';
import { benchCitations, type CitationBenchResult } from './bench/citations.js';
import { benchWatch, type WatchResult, type WatchStats } from './bench/watch.js';
import { BUSY_DAY_VERSION, generateBusyDay, writeBusyMemory } from './fixtures/busy-day.js';
import { editOneMemory, generateSyntheticVault, GENERATOR_VERSION } from './fixtures/synthetic-vault.js';

/**
 * `npm run bench`: times the real CLI (a child process, as users run it) on
 * synthetic vaults of three years of memories, and compares the cold build
 * with Eleventy rendering the same markdown files, a familiar yardstick for
 * "how long should turning N markdown files into output take".
 *
 * The fresh-clone scenario builds a clean checkout of the committed vault
 * (no parse cache) plus three new memories: the nightly job's case.
 *
 * Usage: node dist/scripts/bench.js [--sizes 1000,4000] [--runs N] [--skip-eleventy] [--eleventy-runs N]
 *          [--watch-runs N] [--skip-watch] [--watch-only] [--busy-day N] [--compare-only]
 *
 * `--compare-only`: only the Eleventy comparison (and `--busy-day`), on the 4,000-memory vault.
 *
 * Eleventy (issue 29): memvault's cold build and Eleventy on the same 4,000
 * markdown files, alternating (memvault, Eleventy, memvault, …) so both see the
 * same machine; medians of wall time, CPU time (user + system, all threads)
 * and peak RSS, and the ratios. `--busy-day N` adds one day of N small
 * memories (an agent's memory per step): its first build, then one more
 * memory that day.
 *
 * The watch scenario runs `memvault watch` on the largest vault, saves a
 * memory of today and the newest memory of yesterday, and times how long
 * until UPLOAD_PACKAGE.md on disk holds the edit (what a person waiting on
 * the package feels): median of `--watch-runs` for each.
 *
 * Vaults live in `os.tmpdir()/memvault-bench/<n>` (never in the repository, so
 * a bench cannot dirty the work tree) and are reused while their marker file
 * records the same generator parameters.
 */

const PARSE_FLOOR = path.join(REPO, 'dist', 'scripts', 'parse-floor.js');
const RESULTS_FILE = path.join(BENCH_ROOT, 'results.json');
const MARKER_FILE = '.synthetic-vault.json';
const VAULT_SHAPE = { days: 1095, endDay: '2026-11-20', seed: 20_261_120, pinned: 3 } as const;
const DEFAULT_SIZES = [1000, 4000, 20_000];
/** Cold builds of 20k memories take long enough that one run is informative; smaller sizes get three. */
const LARGE_VAULT = 20_000;
const REBUILD_RUNS = 5;
const ELEVENTY_RUNS = 5;
const ELEVENTY_SIZE = 4000;
const WATCH_RUNS = 7;
/** The busy day's date and seed: the day before `NOW`, so it is complete and summarized. */
const BUSY_DAY = '2026-11-20';
const BUSY_SEED = 29;
/** One-more-memory builds of the busy day (each followed by an untimed build without it); the median is reported. */
const BUSY_DAY_RUNS = 3;

/**
 * Source folders of a stream: `memories/`, and `archive/` where retention
 * moves old memories. Everything else under the stream is build output.
 */
const SOURCE_DIRS = new Set(['memories', 'archive']);

interface BenchOptions {
  sizes: number[];
  /** Overrides the number of cold builds per size. */
  coldRuns: number | undefined;
  skipEleventy: boolean;
  eleventyRuns: number;
  /** Memories of the busy-day scenario (0: skipped). */
  busyDay: number;
  /** Only the Eleventy comparison (and the busy day): no rebuild scenarios, no watch. */
  compareOnly: boolean;
  watchRuns: number;
  skipWatch: boolean;
  /** Only the watch scenario (on an already built vault, or one build first). */
  watchOnly: boolean;
}

type Scenario = 'cold' | 'noChange' | 'editOne' | 'editOneCommit' | 'freshClone';

const SCENARIO_LABELS: Record<Scenario, string> = {
  cold: 'cold full build',
  noChange: 'no-change rebuild',
  editOne: 'rebuild after 1 edit',
  editOneCommit: 'rebuild after 1 edit, commit included (git)',
  freshClone: 'fresh clone (no .memvault) + 3 new memories',
};

interface SizeResult {
  memories: number;
  dir: string;
  /** Seconds spent generating the vault, null when a cached one was reused. */
  generatedSeconds: number | null;
  scenarios: Record<Scenario, Stats>;
  /** The fresh-clone builds' own count of files read and bodies parsed (the last run's; every run is the same). */
  freshClone: FreshCloneCounts;
  /** The citation step's time in the no-change and edit + commit builds of a copy whose memories cite code (src/citations/). */
  citations: CitationBenchResult;
}

interface EleventyResult {
  version: string;
  memories: number;
  inputFiles: number;
  stats: Stats;
  /** memvault's cold builds, alternating with Eleventy's runs on the same files. */
  memvault: Stats;
  /** memvault cold-build median over Eleventy's (below 1 means memvault is faster): wall time, CPU time, peak RSS. */
  ratio: number;
  cpuRatio: number | null;
  rssRatio: number | null;
  /** The same files through gray-matter + remark-parse and nothing else (scripts/parse-floor.ts), on one thread and on all cores. */
  remarkFloor: { threads: number; stats: Stats; ratio: number }[];
}

interface BusyDayResult {
  memories: number;
  /** The first build of the day (cold: no cache, no summaries). */
  cold: Sample;
  /** One more memory that day, then a build: the run of median wall time. */
  oneMore: Sample;
  /** Every one-more run (`BUSY_DAY_RUNS`), and their medians. */
  oneMoreRuns: Stats;
  oneMoreMedianCpuSeconds: number | null;
  /** `build --json`'s `stats.stages` of the cold build and of the median one-more run. */
  coldStages: Record<string, number>;
  oneMoreStages: Record<string, number>;
  /** The 1-minute load average before each one-more run (the machine is shared). */
  oneMoreLoad: number[];
}

function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string' },
      runs: { type: 'string' },
      'skip-eleventy': { type: 'boolean', default: false },
      'eleventy-runs': { type: 'string' },
      'busy-day': { type: 'string' },
      'compare-only': { type: 'boolean', default: false },
      'watch-runs': { type: 'string' },
      'skip-watch': { type: 'boolean', default: false },
      'watch-only': { type: 'boolean', default: false },
    },
  });
  const sizes = values.sizes === undefined ? DEFAULT_SIZES : values.sizes.split(',').map((s) => positiveInt(s, '--sizes'));
  const coldRuns = values.runs === undefined ? undefined : positiveInt(values.runs, '--runs');
  const watchRuns = values['watch-runs'] === undefined ? WATCH_RUNS : positiveInt(values['watch-runs'], '--watch-runs');
  return {
    sizes,
    coldRuns,
    skipEleventy: values['skip-eleventy'] === true,
    eleventyRuns: values['eleventy-runs'] === undefined ? ELEVENTY_RUNS : positiveInt(values['eleventy-runs'], '--eleventy-runs'),
    busyDay: values['busy-day'] === undefined ? 0 : positiveInt(values['busy-day'], '--busy-day'),
    compareOnly: values['compare-only'] === true,
    watchRuns,
    skipWatch: values['skip-watch'] === true,
    watchOnly: values['watch-only'] === true,
  };
}

function positiveInt(text: string, flag: string): number {
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} expects positive integers, got \`${text}\``);
  return n;
}

/** Reuses the vault in `dir` when its marker matches, else regenerates it from scratch. */
function ensureVault(dir: string, memories: number): number | null {
  const marker = JSON.stringify({ generator: GENERATOR_VERSION, memories, ...VAULT_SHAPE });
  const markerPath = path.join(dir, MARKER_FILE);
  if (existsSync(markerPath) && readFileSync(markerPath, 'utf8') === marker) return null;
  rmSync(dir, { recursive: true, force: true });
  const start = performance.now();
  generateSyntheticVault(dir, { memories, ...VAULT_SHAPE });
  writeFileSync(markerPath, marker);
  return (performance.now() - start) / 1000;
}

/** Deletes the cache and every generated file so the next build starts from the memories alone. */
function removeBuildOutput(dir: string): void {
  rmSync(path.join(dir, '.memvault'), { recursive: true, force: true });
  const stream = path.join(dir, 'vault', 'main');
  for (const entry of readdirSync(stream)) {
    if (!SOURCE_DIRS.has(entry)) rmSync(path.join(stream, entry), { recursive: true, force: true });
  }
  for (const file of ['INDEX.md', 'index.json']) rmSync(path.join(dir, 'vault', file), { force: true });
}

function build(dir: string): Sample {
  return timeNode([CLI, 'build', '--now', NOW, '--json', '--no-commit'], dir);
}

async function benchSize(memories: number, options: BenchOptions): Promise<SizeResult> {
  const dir = path.join(BENCH_ROOT, String(memories));
  log(`${memories} memories in ${dir}`);
  const generatedSeconds = ensureVault(dir, memories);
  log(generatedSeconds === null ? '  reusing generated vault' : `  generated in ${formatSeconds(generatedSeconds)}`);

  const coldRuns = options.coldRuns ?? (memories >= LARGE_VAULT ? 1 : 3);
  const cold = repeat('cold', coldRuns, () => {
    removeBuildOutput(dir);
    return build(dir);
  });
  const noChange = repeat('no-change', REBUILD_RUNS, () => build(dir));
  const editSamples: Sample[] = [];
  for (let i = 1; i <= REBUILD_RUNS; i++) {
    await editOneMemory(dir);
    const sample = build(dir);
    log(`  edit-one ${i}/${REBUILD_RUNS}: ${formatSeconds(sample.seconds)}, ${formatMb(sample.peakRssMb)}`);
    editSamples.push(sample);
  }
  const editOneCommit = await benchEditWithCommit(dir);
  const fresh = benchFreshClone(`${dir}-git`);
  // What checking memories' citations against the repository costs these builds (scripts/bench/citations.ts).
  const citations = await benchCitations(`${dir}-git`);
  log(
    `  citations: no-change ${citations.noChange.medianCitationMs} ms (${citations.noChange.sharePercent} % of the rest of the build), ` +
      `edit + commit ${citations.editCommit.medianCitationMs} ms (paths asked again: ${citations.editCommit.recheckedPaths.join(', ')})`,
  );
  return {
    citations,
    memories,
    dir,
    generatedSeconds,
    scenarios: { cold, noChange, editOne: stats(editSamples), editOneCommit, freshClone: fresh.stats },
    freshClone: fresh.counts,
  };
}

/**
 * The edit-one rebuild as the nightly job runs it: on a git-initialised copy
 * of the vault (its first commit, a gc and a first build made once, outside
 * the timing), each build
 * commits the edited memory, its regenerated summaries, history copies,
 * package and index. Checks that each build really committed.
 */
async function benchEditWithCommit(dir: string): Promise<Stats> {
  const repo = `${dir}-git`;
  rmSync(repo, { recursive: true, force: true });
  cpSync(dir, repo, { recursive: true, preserveTimestamps: true });
  writeFileSync(path.join(repo, '.gitignore'), '.memvault/\n');
  const git = (...args: string[]): string => {
    const result = spawnSync('git', args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${repo}: ${result.stderr}`);
    return result.stdout;
  };
  const started = performance.now();
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'bench');
  git('config', 'user.email', 'bench@example.org');
  git('config', 'gc.auto', '0');
  git('add', '-A');
  git('commit', '-q', '--no-verify', '-m', 'synthetic vault');
  // A repository in its steady state: packed in the foreground now (automatic gc off), or `git commit`'s automatic
  // gc packs 20,000 loose objects in the background during the timed builds (seen: 3.5 s, 2.1 s … 1.4 s).
  git('gc', '-q');
  // One untimed build: the copy's files have new mtimes for the parse cache, so this one re-reads them all.
  timeNode([CLI, 'build', '--now', NOW, '--json'], repo);
  log(`  git copy committed, packed and built once in ${formatSeconds((performance.now() - started) / 1000)} (${repo})`);
  const samples: Sample[] = [];
  for (let i = 1; i <= REBUILD_RUNS; i++) {
    await editOneMemory(repo);
    const head = git('rev-parse', 'HEAD');
    const sample = timeNode([CLI, 'build', '--now', NOW, '--json'], repo);
    if (git('rev-parse', 'HEAD') === head || git('status', '--porcelain') !== '')
      throw new Error(`the build in ${repo} did not commit its changes`);
    log(`  edit-one + commit ${i}/${REBUILD_RUNS}: ${formatSeconds(sample.seconds)}, ${formatMb(sample.peakRssMb)}`);
    samples.push(sample);
  }
  return stats(samples);
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** Eleventy's CLI entry as declared by its package.json `bin`, so an upstream rename does not silently break the bench. */
function eleventyPackage(): { bin: string; version: string } {
  const root = path.join(REPO, 'node_modules', '@11ty', 'eleventy');
  const pkg = readJson(path.join(root, 'package.json'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin as Record<string, string> | undefined)?.eleventy;
  if (bin === undefined) throw new Error('node_modules/@11ty/eleventy/package.json declares no `eleventy` bin');
  return { bin: path.join(root, bin), version: String(pkg.version) };
}

/**
 * Eleventy with no config file, markdown only, rendering the stream's
 * memories into a fresh output folder each run (a cold build, like ours),
 * alternating with memvault's cold build of the same vault: both see the same
 * machine, whatever else runs on it.
 */
function benchEleventy(size: SizeResult, runs: number): EleventyResult {
  const { bin, version } = eleventyPackage();
  const input = path.join(size.dir, 'vault', 'main', 'memories');
  const output = path.join(BENCH_ROOT, 'eleventy-out');
  const inputFiles = listMarkdownFiles(input).length;
  log(`Eleventy ${version} on ${inputFiles} markdown files, alternating with memvault's cold build (${runs} runs each)`);
  const eleventySamples: Sample[] = [];
  const memvaultSamples: Sample[] = [];
  for (let i = 1; i <= runs; i++) {
    removeBuildOutput(size.dir);
    const ours = build(size.dir);
    log(`  memvault cold ${i}/${runs}: ${describe(ours)}`);
    memvaultSamples.push(ours);
    rmSync(output, { recursive: true, force: true });
    const theirs = timeNode([bin, `--input=${input}`, `--output=${output}`, '--formats=md', '--quiet'], size.dir);
    log(`  eleventy ${i}/${runs}: ${describe(theirs)}`);
    eleventySamples.push(theirs);
  }
  rmSync(output, { recursive: true, force: true });
  const result = stats(eleventySamples);
  const memvault = stats(memvaultSamples);
  // What remark's parse alone costs on the same files: the floor under any build that parses them with remark, as memvault must.
  const remarkFloor = [...new Set([1, Math.min(os.availableParallelism(), 8)])].map((threads) => {
    const floor = repeat(`remark-parse alone, ${threads} thread${threads > 1 ? 's' : ''}`, Math.min(runs, 3), () =>
      timeNode([PARSE_FLOOR, input, '--threads', String(threads)], size.dir),
    );
    return { threads, stats: floor, ratio: floor.medianSeconds / result.medianSeconds };
  });
  return {
    version,
    memories: size.memories,
    inputFiles,
    stats: result,
    memvault,
    ratio: memvault.medianSeconds / result.medianSeconds,
    cpuRatio: ratioOf(medianOf(memvaultSamples, 'cpuSeconds'), medianOf(eleventySamples, 'cpuSeconds')),
    rssRatio: ratioOf(memvault.medianPeakRssMb, result.medianPeakRssMb),
    remarkFloor,
  };
}

function describe(sample: Sample): string {
  const cpu = sample.cpuSeconds == null ? '' : `, CPU ${formatSeconds(sample.cpuSeconds)}`;
  return `${formatSeconds(sample.seconds)}${cpu}, ${formatMb(sample.peakRssMb)}`;
}

function medianOf(samples: readonly Sample[], field: 'cpuSeconds'): number | null {
  const values = samples.map((s) => s[field]).filter((v): v is number => typeof v === 'number');
  return values.length > 0 ? median(values) : null;
}

function ratioOf(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

/**
 * One day of `memories` small memories (scripts/fixtures/busy-day.ts): its first build, then one more memory of
 * that day and a build (the day's sample of at most `MAX_SUMMARIZED_SOURCES` memories is unchanged by one more at its
 * end, so the embedded summarizer's kept summary of it is reused: calendar/rollup-kept.ts).
 */
function benchBusyDay(memories: number): BusyDayResult {
  const dir = path.join(BENCH_ROOT, `busy-day-${memories}`);
  const options = { memories, day: BUSY_DAY, seed: BUSY_SEED };
  const marker = JSON.stringify({ busyDay: BUSY_DAY_VERSION, ...options });
  const markerPath = path.join(dir, MARKER_FILE);
  if (!existsSync(markerPath) || readFileSync(markerPath, 'utf8') !== marker) {
    rmSync(dir, { recursive: true, force: true });
    const started = performance.now();
    generateBusyDay(dir, options);
    writeFileSync(markerPath, marker);
    log(`busy day: ${memories} memories generated in ${formatSeconds((performance.now() - started) / 1000)} (${dir})`);
  }
  const folder = path.join(dir, 'vault', 'main', 'memories', BUSY_DAY.slice(0, 4), BUSY_DAY.slice(5, 7));
  const extra = path.join(folder, `${BUSY_DAY}-step-${String(memories + 1).padStart(6, '0')}.md`);
  rmSync(extra, { force: true });
  removeBuildOutput(dir);
  const first = runNode([CLI, 'build', '--now', NOW, '--json', '--no-commit'], dir);
  log(`  busy day cold: ${describe(first.sample)}`);
  // One more memory, a build (timed), the memory removed and a build (not timed) to come back: `BUSY_DAY_RUNS` times.
  const runs: { sample: Sample; stdout: string; load: number }[] = [];
  for (let run = 0; run < BUSY_DAY_RUNS; run++) {
    writeBusyMemory(folder, options, memories + 1);
    const load = os.loadavg()[0] ?? 0;
    const more = runNode([CLI, 'build', '--now', NOW, '--json', '--no-commit'], dir);
    log(`  busy day, one more memory: ${describe(more.sample)} (load ${load.toFixed(1)})`);
    runs.push({ ...more, load });
    rmSync(extra, { force: true });
    runNode([CLI, 'build', '--now', NOW, '--json', '--no-commit'], dir);
  }
  const middle = [...runs].sort((a, b) => a.sample.seconds - b.sample.seconds)[Math.floor(runs.length / 2)]!;
  const stagesOf = (stdout: string): Record<string, number> =>
    ((JSON.parse(stdout) as { stats?: { stages?: Record<string, number> } }).stats?.stages ?? {}) as Record<string, number>;
  const oneMoreRuns = stats(runs.map((run) => run.sample));
  return {
    memories,
    cold: first.sample,
    oneMore: middle.sample,
    oneMoreRuns,
    oneMoreMedianCpuSeconds: medianOf(oneMoreRuns.samples, 'cpuSeconds'),
    coldStages: stagesOf(first.stdout),
    oneMoreStages: stagesOf(middle.stdout),
    oneMoreLoad: runs.map((run) => run.load),
  };
}

/** `--compare-only`: the 4,000-memory vault, generated if need be, with no scenario run on it. */
function compareTarget(): SizeResult {
  const dir = path.join(BENCH_ROOT, String(ELEVENTY_SIZE));
  ensureVault(dir, ELEVENTY_SIZE);
  return { memories: ELEVENTY_SIZE, dir } as SizeResult;
}

/** The vault Eleventy is compared on: 4,000 memories, or the benchmarked size closest to it. */
function eleventyTarget(results: SizeResult[]): SizeResult | undefined {
  return [...results].sort((a, b) => Math.abs(a.memories - ELEVENTY_SIZE) - Math.abs(b.memories - ELEVENTY_SIZE))[0];
}

function machine(): Record<string, string | number> {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    totalMemoryGb: Math.round(os.totalmem() / 1024 ** 3),
  };
}

function report(
  info: Record<string, string | number>,
  results: SizeResult[],
  eleventy: EleventyResult | null,
  watch: WatchResult | null,
  busy: BusyDayResult | null = null,
): string {
  const lines = [
    '## memvault build benchmark',
    '',
    `Machine: ${info.cpus} × ${info.cpuModel}, ${info.totalMemoryGb} GB RAM, ${info.platform}, Node ${info.node}; ` +
      `load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} (1 / 5 / 15 min: other work on the machine slows both sides)`,
    `Vaults: ${VAULT_SHAPE.days} days ending ${VAULT_SHAPE.endDay}, build --now ${NOW}`,
    '',
  ];
  if (results.length > 0)
    lines.push('| memories | scenario | runs | median | min | max | peak RSS (median) |', '|---:|---|---:|---:|---:|---:|---:|');
  for (const size of results) {
    for (const scenario of Object.keys(SCENARIO_LABELS) as Scenario[]) {
      const s = size.scenarios[scenario];
      lines.push(
        `| ${size.memories.toLocaleString('en-US')} | ${SCENARIO_LABELS[scenario]} | ${s.runs} | ${formatSeconds(s.medianSeconds)} | ${formatSeconds(s.minSeconds)} | ${formatSeconds(s.maxSeconds)} | ${formatMb(s.medianPeakRssMb)} |`,
      );
    }
  }
  lines.push(
    '',
    ...results.map(
      (size) =>
        `Fresh clone at ${size.memories.toLocaleString('en-US')} memories: ${size.freshClone.read} of ${size.freshClone.files} files read, ` +
        `${size.freshClone.parsed} bodies parsed (build --now ${FRESH_NOW}).`,
    ),
  );
  if (watch) {
    const line = (label: string, w: WatchStats): string =>
      `| ${watch.memories.toLocaleString('en-US')} | watch: save ${label} → UPLOAD_PACKAGE.md on disk | ${w.runs} | ${Math.round(w.medianMs)} ms | ${Math.round(w.minMs)} ms | ${Math.round(w.maxMs)} ms | rebuild ${Math.round(median(w.rebuildMs))} ms |`;
    lines.push(
      '',
      '| memories | scenario | runs | median | min | max | note |',
      '|---:|---|---:|---:|---:|---:|---|',
      line("today's memory", watch.today),
      line("yesterday's memory (daily re-summarized)", watch.yesterday),
      '',
      `memvault watch was ready (first build included) after ${formatSeconds(watch.startupSeconds)}.`,
    );
  }
  if (eleventy) {
    const e = eleventy.stats;
    const m = eleventy.memvault;
    const cpu = (samples: readonly Sample[]): string => {
      const value = medianOf(samples, 'cpuSeconds');
      return value === null ? 'n/a' : formatSeconds(value);
    };
    const ratio = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(2)}×`);
    lines.push(
      '',
      `Cold build against Eleventy ${eleventy.version} on the same ${eleventy.inputFiles} .md files of the ${eleventy.memories.toLocaleString('en-US')}-memory vault ` +
        `(Eleventy: --formats=md, no config), ${e.runs} runs each, alternating; medians:`,
      '',
      '| | wall | CPU (user + system) | peak RSS |',
      '|---|---:|---:|---:|',
      `| memvault build --no-commit | ${formatSeconds(m.medianSeconds)} | ${cpu(m.samples)} | ${formatMb(m.medianPeakRssMb)} |`,
      `| Eleventy | ${formatSeconds(e.medianSeconds)} | ${cpu(e.samples)} | ${formatMb(e.medianPeakRssMb)} |`,
      `| memvault / Eleventy | ${ratio(eleventy.ratio)} | ${ratio(eleventy.cpuRatio)} | ${ratio(eleventy.rssRatio)} |`,
      '',
      ...eleventy.remarkFloor.map(
        (floor) =>
          `gray-matter + remark-parse alone on the same files (scripts/parse-floor.ts, ${floor.threads} thread${floor.threads > 1 ? 's' : ''}, nothing else): ` +
          `median ${formatSeconds(floor.stats.medianSeconds)} (min ${formatSeconds(floor.stats.minSeconds)}, max ${formatSeconds(floor.stats.maxSeconds)}), ${floor.ratio.toFixed(2)}× Eleventy`,
      ),
    );
  }
  if (busy) {
    lines.push(
      '',
      `One day of ${busy.memories.toLocaleString('en-US')} small memories (scripts/fixtures/busy-day.ts): first build ${describe(busy.cold)}; ` +
        `one more memory that day: median of ${busy.oneMoreRuns.runs} ${formatSeconds(busy.oneMoreRuns.medianSeconds)}` +
        `${busy.oneMoreMedianCpuSeconds === null ? '' : `, CPU ${formatSeconds(busy.oneMoreMedianCpuSeconds)}`}` +
        ` (min ${formatSeconds(busy.oneMoreRuns.minSeconds)}, max ${formatSeconds(busy.oneMoreRuns.maxSeconds)}; load ${busy.oneMoreLoad.map((l) => l.toFixed(1)).join(', ')}).`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(CLI)) {
    throw new Error(
      `${path.relative(process.cwd(), CLI)} does not exist; compile first with \`npx tsc -p tsconfig.build.json\` (or use \`npm run bench\`)`,
    );
  }
  mkdirSync(BENCH_ROOT, { recursive: true });
  const info = machine();
  const results: SizeResult[] = [];
  if (!options.watchOnly && !options.compareOnly) for (const memories of options.sizes) results.push(await benchSize(memories, options));
  const target = options.skipEleventy || options.watchOnly ? undefined : options.compareOnly ? compareTarget() : eleventyTarget(results);
  const eleventy = target ? benchEleventy(target, options.eleventyRuns) : null;
  const busy = options.busyDay > 0 && !options.watchOnly ? benchBusyDay(options.busyDay) : null;
  let watch: WatchResult | null = null;
  if (!options.skipWatch && !options.compareOnly) {
    const largest = Math.max(...options.sizes);
    const dir = path.join(BENCH_ROOT, String(largest));
    if (options.watchOnly) {
      ensureVault(dir, largest);
      // The watcher starts from a built vault, as it would in use.
      if (!existsSync(path.join(dir, 'vault', 'main', 'UPLOAD_PACKAGE.md'))) build(dir);
    }
    watch = await benchWatch(dir, largest, options.watchRuns);
  }

  // --watch-only adds its numbers to the last full run's results instead of replacing them.
  const previous = options.watchOnly && existsSync(RESULTS_FILE) ? readJson(RESULTS_FILE) : {};
  const data = options.watchOnly
    ? { ...previous, watch, watchDate: new Date().toISOString() }
    : { date: new Date().toISOString(), machine: info, load: os.loadavg(), now: NOW, vault: VAULT_SHAPE, results, eleventy, watch, busy };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(data, null, 2)}\n`);
  console.log(report(info, results, eleventy, watch, busy));
  console.log(`\nResults: ${RESULTS_FILE}`);
}

main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
