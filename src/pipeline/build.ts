import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadValidConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createSummarizer } from '../llm/create.js';
import type { Summarizer } from '../llm/types.js';
import { addDays, isValidDay, minuteOfDay, monthOfWeek, monthRange, todayIn, weekOf, weekRange } from '../time/periods.js';
import { sha256 } from '../util/hash.js';
import { loadTokenizer } from '../util/tokens.js';
import { acquireBuildLock } from '../util/lock.js';
import { assertLockHeld } from '../util/lock-state.js';
import { UserError } from '../util/errors.js';
import { loadVault, type LoadedVault, type LoadOptions } from '../vault/load.js';
import type { ParsedContent } from '../vault/cache.js';
import type { IndexReport } from '../read/search/store.js';
import type { CalendarTier, Diagnostic, Memory, StreamState, Summary } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';
import { foldUsage } from '../usage/fold.js';
import type { CommitOutcome } from '../git/commit.js';
import { archiveStream, type ArchiveMove } from './archive.js';
import { computeBands } from './bands.js';
import { assemblePackage, CriticalOverBudgetError, packageInputHash, type Manifest } from './package.js';
import {
  planDailies,
  planLongterm,
  planMonthlies,
  planWeeklies,
  resolveRegenerate,
  sourceRefOf,
  type HeldSummary,
  type PlanContext,
  type RollupJob,
  type TierPlan,
} from './plan.js';
import type { TierEstimate } from './estimate.js';
import { RollupError, rollupSourcesOf, runRollup, type RollupContext, type RollupResult } from './rollup.js';
import { BuildPool, vaultLoadOptions } from './build-pool.js';
import { rollupInWorkers, usesRollupWorkers } from './rollup-pool.js';
import { buildIndex, indexInputHash, type StreamIndexInput, type VaultIndex } from './vault-index.js';
import { applyWrites, type WriteOp, type WriteResult } from './write.js';
import { movedAsideReport, removeLeftoverTemps } from './housekeeping.js';
import type { WaterfallReport } from './waterfall-build.js';

/**
 * `memvault build`: load → plan → roll up → check budgets → write →
 * assemble, one stream after the other, under the build lock. Idempotent:
 * with unchanged inputs it makes no summarizer call and writes nothing.
 */

export interface BuildOptions {
  /** Directory holding `memory.config.yaml`. */
  root: string;
  now: Date;
  force?: boolean;
  /** Summarize periods ending on or before this day even if `now` says they are not complete. */
  through?: string;
  /** Plan only: report what would be generated, write nothing. */
  dryRun?: boolean;
  /** Commit the result (default: `git.commit` of the config); `--no-commit` passes false. */
  commit?: boolean;
  /** `--regenerate`: absolute paths of summaries to generate again even though a person edited them (the edit is kept in `history/`). */
  regenerate?: string[];
  /** Injected summarizer (tests); by default the configured profile's. */
  summarizer?: Summarizer;
  /**
   * The build's worker threads, created by the CLI before it loaded the pipeline so that a large vault's scan thread
   * starts early (build-pool.ts); the build closes them. Default: a pool of its own, without a scan thread.
   */
  pool?: BuildPool;
  /** Loads the vault (default `loadVault`); `memvault watch` passes a `LoadSession` that keeps parsed state between builds. */
  loader?: (options: LoadOptions) => Promise<LoadedVault>;
  /** Save the parse cache at the end (default true); watch mode keeps it in memory and saves it when idle. */
  saveCache?: boolean;
  /**
   * Write the package before the rollups when the only stale dailies are of
   * days it shows in full (watch mode: an edit to yesterday's memory reaches
   * the package without waiting for its daily); the package is written again
   * afterwards if the rollups change it.
   */
  packageFirst?: boolean;
  onProgress?: (event: ProgressEvent) => void;
  /** Progress of parsing the changed files: `done` of `total` (a cold build of a large vault parses for a while). */
  onParse?: (done: number, total: number) => void;
  /** Who holds the build lock, as another build is told (`another build is running (pid …, \`memvault watch\`)`). */
  lockCommand?: string;
}

/** Emitted when a tier starts (`done: 0`) and after each of its rollups; counts are for the tier so far. */
export interface ProgressEvent {
  stream: string;
  tier: CalendarTier;
  done: number;
  total: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  failed: number;
}

export interface TierStats {
  created: number;
  updated: number;
  merged: number;
  flagged: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Repeated requests: tighter retries after over-budget answers, and retries after faults. */
  retries: number;
  /** Rollups that produced nothing usable (listed in `StreamReport.failed`). */
  failed: number;
  /** Answers cleaned before use (meta-commentary, frontmatter, fences removed). */
  sanitized: number;
  ms: number;
}

/** A rollup that failed: nothing was written for it, a previous version stays, the tiers above wait. */
export interface FailedRollup {
  tier: CalendarTier;
  period: string;
  path: string;
  /** `timeout`, `connection`, `rate-limit`, `server`, `empty`, `auth`, `not-found`, `bad-request`, `truncated`, `over-budget`… */
  kind: string;
  reason: string;
  /** A previous version exists and was kept. */
  kept: boolean;
}

export interface StreamReport {
  name: string;
  memories: number;
  /** Memories dated after `now`, left for a later build. */
  future: number;
  tiers: Record<CalendarTier, TierStats>;
  held: HeldSummary[];
  deferred: { tier: CalendarTier; period: string; reason: string }[];
  /** Dry run: the summaries that would be generated (upper tiers estimated from the tiers below). */
  planned: { tier: CalendarTier; period: string; reason: string }[];
  /** Dry run: estimated summaries, merges, calls and tokens per tier (output tokens are upper bounds; retries not included). */
  estimate?: Record<CalendarTier, TierEstimate>;
  failed: FailedRollup[];
  package: { path: string; tokens: number; bytes: number; changed: boolean; degraded: number; leftOut: number } | null;
}

export interface BuildReport {
  now: string;
  /** The vault folder, relative to the project root (paths in the report are relative to it). */
  vault: string;
  dryRun: boolean;
  streams: StreamReport[];
  /** Streams with `waterfall: true`: compactions run and CONTEXT.md (spec section 5). */
  waterfall: WaterfallReport[];
  written: string[];
  historyCopies: string[];
  /** Files moved to `archive/` (a dry run lists the moves it would make). */
  archived: ArchiveMove[];
  /** What the commit step did; null for a dry run. */
  commit: CommitOutcome | null;
  diagnostics: Diagnostic[];
  /**
   * `read`: files read and their frontmatter parsed (not in the parse cache); `parsed`: markdown bodies parsed, at load (new memories) or when a
   * stage read them (a fresh clone parses only what it summarizes and packages).
   * `workerParses`, `workerRollups`: files parsed and summaries made on the build's worker threads (build-pool.ts); `helper`: the vault was walked on a
   * thread of its own (large vaults, build-pool.ts). Timings in ms: `load` (find and parse files),
   * `package` and `index` (assembly and writing), `commit` (the git commit), `ms` the whole build.
   */
  stats: {
    files: number;
    read: number;
    parsed: number;
    workerParses: number;
    workerRollups: number;
    helper: boolean;
    ms: number;
    load: number;
    package: number;
    index: number;
    commit: number;
  };
  generator: { provider: string; model: string };
  /** The search index (.memvault/search/): documents added, re-indexed and removed by this build (src/read/search/store.ts). */
  search?: IndexReport;
}

const TIERS: CalendarTier[] = ['daily', 'weekly', 'monthly', 'longterm'];

export async function build(options: BuildOptions): Promise<BuildReport> {
  const started = performance.now();
  // Worker threads for the whole build, started only by a stage with enough work (many files to parse, many rollups).
  const pool = options.pool ?? BuildPool.create();
  try {
    const config = await loadValidConfig(options.root);
    if (options.through !== undefined && !isValidDay(options.through))
      throw new UserError(`--through \`${options.through}\` is not a date`, 'use YYYY-MM-DD, e.g. --through 2026-02-15', 'cli/through');
    const release = options.dryRun
      ? async () => {}
      : await acquireBuildLock(path.join(options.root, '.memvault'), options.lockCommand ?? 'memvault build');
    try {
      return await buildLocked(options, config, started, pool);
    } finally {
      await release();
    }
  } finally {
    pool?.close();
  }
}

async function buildLocked(options: BuildOptions, config: Config, started: number, pool: BuildPool | undefined): Promise<BuildReport> {
  const vaultDir = path.resolve(options.root, config.vault);
  // Before loading: a missing key or a broken prompt file fails fast, whatever the size of the vault.
  const summarizer = options.summarizer ?? createSummarizer(config, process.env, { root: options.root, dryRun: options.dryRun ?? false });
  const loaded = await (options.loader ?? loadVault)({
    ...vaultLoadOptions(options.root, config),
    ...(pool ? { pool } : {}),
    ...(options.onParse ? { onParse: options.onParse } : {}),
  });
  // A watch session's content store lives on between builds: this build's parses are those after its load.
  const parsedAtLoad = loaded.content.parsed;
  const regenerate = resolveRegenerate(options.regenerate ?? [], vaultDir, loaded.state.streams.values());
  // isomorphic-git is loaded only when a commit may happen (~150-300 ms of start-up otherwise).
  const commitEnabled = !options.dryRun && (options.commit ?? config.git.commit);
  const session = commitEnabled
    ? await (await import('../git/commit.js')).openCommitSession({
        vaultDir,
        stateDir: path.join(options.root, '.memvault'),
        enabled: true,
        author: config.git.author,
      })
    : undefined;
  const report: BuildReport = {
    now: options.now.toISOString(),
    vault: config.vault,
    dryRun: options.dryRun ?? false,
    streams: [],
    waterfall: [],
    written: [],
    historyCopies: [],
    archived: [],
    commit: null,
    diagnostics: [...loaded.state.diagnostics, ...(summarizer.diagnostics ?? [])],
    stats: {
      files: loaded.stats.files,
      read: loaded.stats.read,
      parsed: loaded.stats.parsed,
      workerParses: loaded.stats.workerParses,
      workerRollups: 0,
      helper: pool?.scans === true && options.loader === undefined,
      ms: 0,
      load: Math.round(performance.now() - started),
      package: 0,
      index: 0,
      commit: 0,
    },
    generator: { provider: summarizer.provider, model: summarizer.model },
  };
  // Under the lock, no other build writes: every temp file of a killed build can go (housekeeping.ts).
  if (!report.dryRun)
    report.diagnostics.push(...removeLeftoverTemps(vaultDir, path.join(options.root, '.memvault'), loaded.state.streams.keys()));
  const indexInputs: StreamIndexInput[] = [];
  const nowDay = todayIn(options.now, config.timezone);
  const nowMinute = minuteOfDay(options.now, config.timezone);
  for (const loadedStream of loaded.state.streams.values()) {
    const streamConfig = config.streams[loadedStream.name] ?? { calendar: true, waterfall: false };
    if (!streamConfig.calendar && !streamConfig.waterfall) continue;
    // Memories dated after `now` wait for a later build: a build as of a past moment sees the vault as it was then.
    const isPast = (m: Memory): boolean => m.day < nowDay || (m.day === nowDay && m.minute <= nowMinute);
    const stream: StreamState = { ...loadedStream, memories: loadedStream.memories.filter(isPast) };
    for (const m of loadedStream.memories) {
      if (isPast(m)) continue;
      const reason = `dated after the build's now (\`${m.date}\`): left out of this build`;
      const hint = 'a later build includes it; fix the date if it is a typo';
      report.diagnostics.push({ path: m.path, line: 1, column: 1, severity: 'info', reason, hint, rule: 'memory/future-date' });
    }
    if (streamConfig.waterfall) {
      // Count-based compaction and CONTEXT.md (waterfall-build.ts); forcing one is `memvault compact --force`'s job, not `build --force`'s.
      // Loaded only for waterfall streams: start-up time counts in every one-edit rebuild.
      const { runWaterfall } = await import('./waterfall-build.js');
      const waterfall = await runWaterfall(stream, {
        config,
        vaultDir,
        loaded,
        summarizer,
        now: options.now,
        force: false,
        dryRun: report.dryRun,
      });
      report.waterfall.push(waterfall);
      report.written.push(...waterfall.written);
      report.historyCopies.push(...waterfall.historyCopies);
      if (!streamConfig.calendar) {
        indexInputs.push({
          name: stream.name,
          memories: stream.memories,
          summaries: [...stream.summaries.values()],
          held: [],
          deferred: [],
          manifest: undefined,
        });
        continue;
      }
    }
    const result = await buildStream(stream, { options, config, vaultDir, loaded, summarizer, report, regenerate, pool });
    result.report.future = loadedStream.memories.length - stream.memories.length;
    report.streams.push(result.report);
    indexInputs.push({
      name: stream.name,
      memories: stream.memories,
      summaries: [...stream.summaries.values()],
      held: result.report.held,
      deferred: result.report.deferred,
      manifest: result.manifest,
    });
  }
  const indexStarted = performance.now();
  if (!report.dryRun) writeIndex(indexInputs, loaded, vaultDir, report);
  report.stats.index = Math.round(performance.now() - indexStarted);
  // This clone's usage log, folded into each stream's usage.json, is committed with the build (src/usage/fold.ts).
  if (!report.dryRun) report.written.push(...foldUsage(options.root, vaultDir, [...loaded.state.streams.values()]));
  if (options.saveCache !== false) loaded.cache.save();
  // The search index follows the vault by content hash: what this build loaded or wrote that changed is re-indexed, nothing else.
  if (!report.dryRun) {
    // A fresh clone has no index: the first search builds it (indexing every document here would cost the whole history).
    const search = await (await import('../read/search/sync.js')).syncSearch(options.root, loaded, config);
    if (search) report.search = search;
  }
  // The package may be written twice (`packageFirst`): listed once.
  report.written = [...new Set(report.written)];
  const moved = movedAsideReport();
  report.diagnostics.push(...moved.diagnostics, ...(summarizer.takeDiagnostics?.() ?? []));
  report.historyCopies = [...new Set([...report.historyCopies, ...moved.paths])];
  // A build that lost its lock commits nothing: another one may have written the same files meanwhile.
  assertLockHeld();
  const commitStarted = performance.now();
  if (session) report.commit = await (await import('../git/build-commit.js')).commitBuild(session, report, indexInputs, options.now);
  else if (!report.dryRun) report.commit = { status: 'disabled', note: 'commit disabled (--no-commit or git.commit: false)' };
  report.stats.commit = Math.round(performance.now() - commitStarted);
  report.stats.parsed = loaded.stats.parsed + loaded.content.parsed - parsedAtLoad;
  report.stats.ms = Math.round(performance.now() - started);
  return report;
}

interface StreamContext {
  options: BuildOptions;
  config: Config;
  vaultDir: string;
  loaded: LoadedVault;
  summarizer: Summarizer;
  report: BuildReport;
  /** `--regenerate`, as vault-relative paths. */
  regenerate: ReadonlySet<string>;
  /** The build's worker threads, when this machine and build can have them. */
  pool: BuildPool | undefined;
}

async function buildStream(stream: StreamState, ctx: StreamContext): Promise<{ report: StreamReport; manifest: Manifest | undefined }> {
  const { options, config } = ctx;
  const today = todayIn(options.now, config.timezone);
  const planContext: PlanContext = {
    stream: stream.name,
    horizon: options.through ?? addDays(today, -1),
    force: options.force ?? false,
    regenerate: ctx.regenerate,
    generator: { provider: ctx.summarizer.provider, model: ctx.summarizer.model, promptId: (tier) => ctx.summarizer.promptId(tier) },
    budgets: {
      daily: config.calendar.daily,
      weekly: config.calendar.weekly,
      monthly: config.calendar.monthly,
      longterm: config.calendar.longterm,
    },
  };
  const report: StreamReport = {
    name: stream.name,
    memories: stream.memories.length,
    future: 0,
    tiers: Object.fromEntries(TIERS.map((tier) => [tier, emptyStats()])) as Record<CalendarTier, TierStats>,
    held: [],
    deferred: [],
    planned: [],
    failed: [],
    package: null,
  };
  const memoriesById = new Map(stream.memories.map((memory) => [memory.id, memory]));
  const bands = computeBands(options.now, config.timezone, config.upload);

  const planners: Record<CalendarTier, () => TierPlan> = {
    daily: () => planDailies(stream.memories, stream.summaries, planContext),
    weekly: () => planWeeklies(stream.memories, stream.summaries, planContext),
    monthly: () => planMonthlies(stream.memories, stream.summaries, planContext),
    longterm: () => planLongterm(stream.summaries, bands.longtermThrough, planContext),
  };

  const dailyPlan = planners.daily();
  if (options.packageFirst && !options.dryRun && dailyPlan.jobs.length > 0 && dailyPlan.jobs.every((job) => job.start >= bands.rawFrom)) {
    // The only stale dailies are of days the package shows in full: it can show the edit before they are summarized again.
    const packageStarted = performance.now();
    writePackage(stream, bands, ctx, report);
    ctx.report.stats.package += Math.round(performance.now() - packageStarted);
  }
  let dailyJobs: RollupJob[] = [];
  for (const tier of TIERS) {
    const plan = tier === 'daily' ? dailyPlan : planners[tier]();
    report.held.push(...plan.held);
    if (options.dryRun && tier !== 'daily') {
      // Upper tiers: what is stale already (a changed prompt, say), plus what the planned dailies change (listed with them).
      const listed = new Set(report.planned.map((p) => (p.tier === 'longterm' ? 'longterm' : `${p.tier}/${p.period}`)));
      report.planned.push(
        ...plan.jobs
          .filter((job) => !listed.has(tier === 'longterm' ? 'longterm' : `${tier}/${job.period}`))
          .map((job) => ({ tier, period: job.period, reason: job.reason })),
      );
      continue;
    }
    report.deferred.push(...plan.deferred.map((d) => ({ tier, ...d })));
    if (options.dryRun) {
      dailyJobs = plan.jobs;
      report.planned.push(...plan.jobs.map((job) => ({ tier, period: job.period, reason: job.reason })));
      report.planned.push(...estimateUpperTiers(plan.jobs, planContext));
      // A changed monthly that is folded into the long-term summary changes it too.
      const folded = report.planned
        .filter((p) => p.tier === 'monthly' && p.period <= bands.longtermThrough)
        .map((p) => p.period)
        .sort();
      if (folded.length > 0) report.planned.push({ tier: 'longterm', period: folded[folded.length - 1]!, reason: 'inputs change' });
      continue;
    }
    await runTier(tier, plan.jobs, stream, memoriesById, ctx, report);
  }
  // Archive what is past retention once the tiers above hold it; the package and the index then see the final paths.
  ctx.report.archived.push(
    ...archiveStream(stream, {
      vaultDir: ctx.vaultDir,
      retention: config.calendar.retention,
      today,
      dryRun: options.dryRun ?? false,
      cache: ctx.loaded.cache,
    }),
  );
  if (options.dryRun) {
    const { estimateCost } = await import('./estimate.js'); // dry runs only
    report.estimate = estimateCost({
      stream,
      planned: report.planned,
      dailyJobs,
      rollup: rollupContextOf(stream, memoriesById, ctx),
      summarizer: ctx.summarizer,
      budgets: planContext.budgets,
      longtermThrough: bands.longtermThrough,
    });
    return { report, manifest: undefined };
  }

  const packageStarted = performance.now();
  const manifest = writePackage(stream, bands, ctx, report);
  ctx.report.stats.package += Math.round(performance.now() - packageStarted);
  return { report, manifest };
}

async function runTier(
  tier: CalendarTier,
  jobs: readonly RollupJob[],
  stream: StreamState,
  memoriesById: ReadonlyMap<string, Memory>,
  ctx: StreamContext,
  report: StreamReport,
): Promise<void> {
  if (jobs.length === 0) return;
  const started = performance.now();
  const stats = report.tiers[tier];
  const rollupContext = rollupContextOf(stream, memoriesById, ctx);
  let done = 0;
  const progress = { calls: 0, inputTokens: 0, outputTokens: 0, failed: 0 };
  ctx.options.onProgress?.({ stream: stream.name, tier, done, total: jobs.length, ...progress });
  const count = (outcome: RollupResult | RollupError): void => {
    if (outcome instanceof RollupError) progress.failed++;
    progress.calls += outcome.usage.calls;
    progress.inputTokens += outcome.usage.inputTokens;
    progress.outputTokens += outcome.usage.outputTokens;
    ctx.options.onProgress?.({ stream: stream.name, tier, done: ++done, total: jobs.length, ...progress });
  };
  // Each summary is written as soon as it is made, while the others are still being made (the main thread would
  // only wait); the report lists them in job order whatever order they came in.
  const writes: (WriteResult | undefined)[] = new Array(jobs.length);
  // Bodies of summaries the rollup workers parsed already.
  const parsedBodies = new Map<RollupResult, ParsedContent>();
  const settle = (index: number, outcome: RollupResult | RollupError, parsed?: ParsedContent): void => {
    count(outcome);
    if (outcome instanceof RollupError) return;
    if (parsed) parsedBodies.set(outcome, parsed);
    const op: WriteOp = {
      path: outcome.job.path,
      text: outcome.text,
      history: { stream: stream.name, tier, period: outcome.job.tier === 'longterm' ? 'longterm' : outcome.job.period },
    };
    writes[index] = applyWrites(ctx.vaultDir, [op], ctx.options.now);
  };
  const inWorkers = async (pool: BuildPool): Promise<(RollupResult | RollupError)[]> => {
    const settings = { tokenizer: rollupContext.tokenizer, budgets: rollupContext.budgets, retries: rollupContext.retries };
    const pooled = await rollupInWorkers(
      jobs,
      (job) => rollupSourcesOf(job, rollupContext),
      settings,
      pool,
      (index, outcome) => (outcome instanceof RollupError ? settle(index, outcome) : settle(index, outcome.result, outcome.parsed)),
    );
    ctx.report.stats.workerRollups += jobs.length;
    return pooled.map((outcome) => (outcome instanceof RollupError ? outcome : outcome.result));
  };
  const inProcess = (): Promise<(RollupResult | RollupError)[]> =>
    mapWithConcurrency(jobs, ctx.config.llm.concurrency, async (job, index) => {
      let outcome: RollupResult | RollupError;
      try {
        outcome = await runRollup(job, rollupContext);
      } catch (error) {
        // One failed summary never aborts the others; the tiers above it wait (the planner defers them).
        if (!(error instanceof RollupError)) throw error;
        outcome = error;
      }
      settle(index, outcome);
      return outcome;
    });
  let outcomes: (RollupResult | RollupError)[];
  if (usesRollupWorkers(ctx.summarizer.provider, jobs.length, ctx.pool)) {
    const made = inWorkers(ctx.pool); // the jobs are on their way when this returns
    // The package counts tokens next: load the tables here while a worker makes the last tier's summary (~200 ms).
    if (tier === 'longterm') loadTokenizer(ctx.config.tokenizer);
    outcomes = await made;
  } else outcomes = await inProcess();
  for (const written of writes) {
    if (!written) continue;
    ctx.report.written.push(...written.written);
    ctx.report.historyCopies.push(...written.historyCopies);
  }
  for (const outcome of outcomes) {
    if (outcome instanceof RollupError) {
      report.failed.push({
        tier,
        period: outcome.job.period,
        path: outcome.job.path,
        kind: outcome.kind,
        reason: outcome.message,
        kept: outcome.job.existing !== undefined,
      });
      addFailure(stats, outcome);
      continue;
    }
    recordWritten(outcome, stream, ctx, parsedBodies.get(outcome));
    addUsage(stats, outcome);
  }
  stats.ms += Math.round(performance.now() - started);
}

function recordWritten(result: RollupResult, stream: StreamState, ctx: StreamContext, parsedBody?: ParsedContent): void {
  const fileSha = sha256(result.text);
  const summary: Summary = { meta: result.meta, path: result.job.path, sha256: fileSha, bodyHash: sha256(result.body) };
  stream.summaries.set(summary.path, summary);
  const parsed = ctx.loaded.content.rememberSummary(fileSha, result.body, parsedBody);
  // Record the file in the parse cache now, so the next build does not read it again.
  const stat = statSync(path.join(ctx.vaultDir, summary.path));
  ctx.loaded.cache.set(
    summary.path,
    { size: stat.size, mtimeMs: stat.mtimeMs, sha256: fileSha, result: { type: 'summary', summary } },
    parsed,
  );
}

function addUsage(stats: TierStats, result: RollupResult): void {
  if (result.job.existing) stats.updated++;
  else stats.created++;
  if (result.attempts === 0) stats.merged++;
  if (result.flagged) stats.flagged++;
  if (result.notes && result.notes.length > 0) stats.sanitized++;
  stats.calls += result.usage.calls;
  stats.inputTokens += result.usage.inputTokens;
  stats.outputTokens += result.usage.outputTokens;
  stats.retries += Math.max(0, result.attempts - 1) + (result.usage.retries ?? 0);
}

function addFailure(stats: TierStats, failure: RollupError): void {
  stats.failed++;
  stats.calls += failure.usage.calls;
  stats.inputTokens += failure.usage.inputTokens;
  stats.outputTokens += failure.usage.outputTokens;
  stats.retries += Math.max(0, failure.attempts - 1) + (failure.usage.retries ?? 0);
}

function rollupContextOf(stream: StreamState, memoriesById: ReadonlyMap<string, Memory>, ctx: StreamContext): RollupContext {
  return {
    summarizer: ctx.summarizer,
    tokenizer: ctx.config.tokenizer,
    budgets: {
      daily: ctx.config.calendar.daily,
      weekly: ctx.config.calendar.weekly,
      monthly: ctx.config.calendar.monthly,
      longterm: ctx.config.calendar.longterm,
    },
    retries: ctx.config.llm.retries,
    content: ctx.loaded.content,
    memoriesById,
    summariesById: new Map([...stream.summaries.values()].map((summary) => [sourceRefOf(summary).id, summary])),
  };
}

function writePackage(
  stream: StreamState,
  bands: ReturnType<typeof computeBands>,
  ctx: StreamContext,
  report: StreamReport,
): Manifest | undefined {
  const packagePath = vaultPaths.package(stream.name);
  const manifestPath = vaultPaths.manifest(stream.name);
  const base = {
    stream: stream.name,
    vaultLabel: ctx.config.vault,
    bands,
    memories: stream.memories,
    summaries: stream.summaries,
    upload: ctx.config.upload,
    tokenizer: ctx.config.tokenizer,
  };
  const previous = readJson<Manifest>(path.join(ctx.vaultDir, manifestPath));
  const inputHash = packageInputHash(base);
  if (previous && previous.input_hash === inputHash && fileExists(path.join(ctx.vaultDir, packagePath))) {
    report.package = { path: packagePath, tokens: previous.tokens, bytes: previous.bytes, changed: false, ...countStatuses(previous) };
    return previous;
  }
  let assembled;
  try {
    assembled = assemblePackage(
      { ...base, readMemory: (memory) => ctx.loaded.content.memory(memory), readSummary: (summary) => ctx.loaded.content.summary(summary) },
      inputHash,
    );
  } catch (error) {
    if (error instanceof CriticalOverBudgetError) {
      const biggest = error.pinned
        .slice(0, 3)
        .map((p) => `${p.path} (${p.tokens} tokens)`)
        .join(', ');
      throw new UserError(
        `${error.message} (${ctx.config.upload.max_tokens} tokens / ${ctx.config.upload.max_bytes} bytes allowed)`,
        `unpin some memories (set \`importance: high\`), largest first: ${biggest}`,
        'package/critical-over-budget',
      );
    }
    throw error;
  }
  const written = applyWrites(
    ctx.vaultDir,
    [
      { path: packagePath, text: assembled.text },
      { path: manifestPath, text: `${JSON.stringify(assembled.manifest, null, 2)}\n` },
    ],
    ctx.options.now,
  );
  ctx.report.written.push(...written.written);
  report.package = {
    path: packagePath,
    tokens: assembled.manifest.tokens,
    bytes: assembled.manifest.bytes,
    changed: written.written.length > 0,
    ...countStatuses(assembled.manifest),
  };
  return assembled.manifest;
}

function countStatuses(manifest: Manifest): { degraded: number; leftOut: number } {
  return {
    degraded: manifest.items.filter((i) => i.status === 'degraded').length,
    leftOut: manifest.items.filter((i) => i.status === 'left-out').length,
  };
}

function writeIndex(streams: readonly StreamIndexInput[], loaded: LoadedVault, vaultDir: string, report: BuildReport): void {
  const diagnostics = loaded.state.diagnostics;
  const previous = readJson<VaultIndex>(path.join(vaultDir, vaultPaths.indexJson));
  const inputHash = indexInputHash(streams, diagnostics);
  if (previous?.input_hash === inputHash && fileExists(path.join(vaultDir, vaultPaths.indexMarkdown))) return;
  const index = buildIndex(streams, diagnostics, (summary) => loaded.content.summary(summary), { previous, inputHash });
  const written = applyWrites(
    vaultDir,
    [
      { path: vaultPaths.indexMarkdown, text: index.markdown },
      { path: vaultPaths.indexJson, text: `${JSON.stringify(index.json, null, 2)}\n` },
    ],
    new Date(0),
  );
  report.written.push(...written.written);
}

/** Dry run: the weeks and months whose inputs the planned dailies change, if those periods are complete. */
function estimateUpperTiers(dailyJobs: readonly RollupJob[], ctx: PlanContext): StreamReport['planned'] {
  const weeks = [...new Set(dailyJobs.map((job) => weekOf(job.period)))].filter((week) => ctx.force || weekRange(week).end <= ctx.horizon);
  const months = [...new Set(weeks.map(monthOfWeek))].filter((month) => ctx.force || monthRange(month).end <= ctx.horizon);
  return [
    ...weeks.map((period) => ({ tier: 'weekly' as const, period, reason: 'inputs change' })),
    ...months.map((period) => ({ tier: 'monthly' as const, period, reason: 'inputs change' })),
  ];
}

function emptyStats(): TierStats {
  return {
    created: 0,
    updated: 0,
    merged: 0,
    flagged: 0,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    retries: 0,
    failed: 0,
    sanitized: 0,
    ms: 0,
  };
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function fileExists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
