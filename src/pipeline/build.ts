import path from 'node:path';
import { loadValidConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createSummarizer } from '../llm/create.js';
import { factWarnings } from '../facts/surface.js';
import type { Summarizer } from '../llm/types.js';
import { addDays, isValidDay } from '../time/periods.js';
import { leftOutOf } from '../maintain/left-out.js';
import { foldUsage } from '../usage/fold.js';
import { UserError } from '../util/errors.js';
import { ensureVaultInside } from '../util/inside.js';
import { acquireBuildLock } from '../util/lock.js';
import { useStateSnapshot } from '../store/database.js';
import { assertLockHeld } from '../util/lock-state.js';
import { loadVault } from '../load/load.js';
import type { CalendarTier, Diagnostic, Memory, StreamState } from '../vault/model.js';
import { type BuildPlan, planBuild, plannedReport, type StreamPlan } from './build-plan.js';
import { BuildPool, coreToSpare, vaultLoadOptions } from './workers/build-pool.js';
import { rollupWorkersOn } from './workers/rollup-pool.js';
import { StageClock, watchGc } from './build-timings.js';
import { DerivedMemo } from '../store/derived-memo.js';
import type { BuildContext, BuildOptions } from './build-context.js';
import { assembleReport, type BuildParts, type BuildReport, finishReport, type StreamOutcome } from './build-report.js';
import { diskWriter, RecordingWriter } from './writer.js';
import { applyCalendar, rollupContextOf } from './calendar/apply.js';
import type { EstimateInput } from './estimate.js';
import type { CitationReport } from '../citations/build-step.js';
import type { CommitOutcome, CommitSession, CommitSkip } from '../git/commit.js';
import type { IndexReport } from '../search/store.js';
import { movedAsideReport, removeLeftoverTemps } from './housekeeping.js';
import { manifestOnDisk, writeIndex } from './outputs.js';
import { resolveRegenerate } from './calendar/plan.js';
import type { StreamIndexInput } from './vault-index.js';

export type { BuildReport, FailedRollup, ProgressEvent, StreamReport, TierStats } from './build-report.js';
export type { BuildOptions } from './build-context.js';

/**
 * `memvault build`: load, plan (build-plan.ts, pure), apply the plan stream
 * after stream (waterfall/build.ts, calendar/apply.ts: roll up, check
 * budgets, write, archive, package), then the index, the search index and
 * the commit, under the build lock. Each stage returns what it did and the
 * report is assembled from those results (build-report.ts `assembleReport`).
 * Idempotent: with unchanged inputs it makes no summarizer call and writes
 * nothing. `--dry-run` is the same run with a recording writer (writer.ts)
 * and a summarizer that makes placeholders (estimate.ts): it reports the plan,
 * its cost estimate and what a build would write, and leaves the vault and
 * `.memvault/` as they were (no lock, no state store, no search index, no commit).
 */

export async function build(options: BuildOptions): Promise<BuildReport> {
  const started = performance.now();
  // Worker threads for the whole build, started only by a stage with enough work (many files to parse, many rollups).
  const pool = options.pool ?? BuildPool.create();
  try {
    const config = await loadValidConfig(options.root);
    if (options.through !== undefined && !isValidDay(options.through))
      throw new UserError('cli/through', `--through \`${options.through}\` is not a date`);
    // A dry run takes no lock and reads the state store from a copy in memory: it writes nothing under `.memvault/`.
    const stateDir = path.join(options.root, '.memvault');
    const release = options.dryRun
      ? dryRunRelease(useStateSnapshot(stateDir))
      : await acquireBuildLock(stateDir, options.lockCommand ?? 'memvault build');
    try {
      return await buildLocked(options, config, started, pool);
    } finally {
      await release();
    }
  } finally {
    pool?.close();
  }
}

function dryRunRelease(restore: () => void): () => Promise<void> {
  return async () => restore();
}

async function buildLocked(options: BuildOptions, config: Config, started: number, pool: BuildPool | undefined): Promise<BuildReport> {
  const gc = watchGc();
  try {
    return await buildWatched(options, config, started, pool, gc);
  } finally {
    gc.stop();
  }
}

/**
 * The stages of a build under the lock, in order: open (load, context), plan, apply each stream, write the vault-wide
 * outputs, assemble the report from what the stages returned, commit. Each stage returns its part of the report.
 */
async function buildWatched(
  options: BuildOptions,
  config: Config,
  started: number,
  pool: BuildPool | undefined,
  gc: ReturnType<typeof watchGc>,
): Promise<BuildReport> {
  const opened = await openBuild(options, config, pool, started);
  const planned = await planStage(opened);
  const nearDuplicates = await lookForNearDuplicates(planned.plan, opened);
  // The plan applied stream after stream: the waterfall, then the calendar tiers, archive and package (a dry run's into its recording writer).
  const { applied, indexInputs } = await applyStreams(planned.plan, opened);
  const nearDuplicateWarnings = (await nearDuplicates.found).flat();
  // Each open contradiction between facts once, at the later fact's place and naming the other; facts that cannot be read.
  // The build's view of each stream (memories up to `now`), after it is applied: an archived memory is named where it is now.
  const facts = factWarnings(planned.plan.order.map((entry) => entry.stream));
  const outputs = await writeOutputs(opened, planned.memo, indexInputs, applied);
  const moved = movedAsideReport();
  const { ctx } = opened;
  const { loaded } = ctx;
  const report = assembleReport({
    now: options.now,
    vault: config.vault,
    dryRun: opened.dryRun,
    generator: { provider: ctx.summarizer.provider, model: ctx.summarizer.model },
    load: { ...loaded.stats, helper: pool?.scans === true && options.loader === undefined, ms: opened.loadMs },
    diagnostics: {
      load: [...loaded.state.diagnostics, ...(loaded.warnings ?? []), ...(ctx.summarizer.diagnostics ?? [])],
      housekeeping: opened.housekeeping,
      plan: planned.plan.diagnostics,
      nearDuplicates: nearDuplicateWarnings,
      facts,
      search: outputs.searchNotes,
      movedAside: moved.diagnostics,
      summarizer: ctx.summarizer.takeDiagnostics?.() ?? [],
    },
    ...(opened.dryRun ? dryRunParts(planned.plan, opened, applied) : {}),
    applied,
    indexWritten: outputs.indexWritten,
    usageWritten: outputs.usageWritten,
    movedAside: moved.paths,
    ...(opened.citations ? { citations: opened.citations } : {}),
    ...(outputs.search ? { search: outputs.search } : {}),
    ms: { plan: planned.ms, index: outputs.indexMs },
  });
  return commitStage(report, opened, outputs, indexInputs, gc);
}

/**
 * A dry run's report parts: the plan's view of the streams and the waterfall (`planned`, `estimate`, `packagePlan`),
 * the archive moves the applied run made, and what its recording writer kept (`wouldWrite`).
 */
function dryRunParts(plan: BuildPlan, opened: OpenedBuild, applied: readonly StreamOutcome[]): Pick<BuildParts, 'planned' | 'wouldWrite'> {
  const report = plannedReport(plan, (p) => opened.waterfall!.plannedWaterfallReport(p));
  const archived = applied.flatMap((stream) => stream.calendar?.archived ?? []);
  const writer = opened.ctx.writer;
  return { planned: { ...report, archived }, wouldWrite: writer instanceof RecordingWriter ? writer.changes() : [] };
}

/** The build's one context and what opening it gave besides. */
interface OpenedBuild {
  ctx: BuildContext;
  dryRun: boolean;
  pool: BuildPool | undefined;
  /** Times the build's stages (also `ctx.clock`, which the calendar stage reads). */
  clock: StageClock;
  started: number;
  /** Milliseconds from the start of the build to the end of the load (the commit session opened). */
  loadMs: number;
  /** Bodies parsed before this build: a watch session's content store lives on between builds. */
  parsedAtLoad: number;
  regenerate: ReturnType<typeof resolveRegenerate>;
  session: CommitSession | CommitSkip | undefined;
  /** The committed record's uncommitted shards, looked for while the build runs (committed-record-write.ts). */
  recordLook: ReturnType<typeof import('../store/committed-record-write.js').lookForUncommittedRecord> | undefined;
  /** Temporary files of a killed build, removed under the lock (housekeeping.ts). */
  housekeeping: Diagnostic[];
  /** Loaded only for waterfall streams: start-up time counts in every one-edit rebuild. */
  waterfall: typeof import('./waterfall/build.js') | undefined;
  /** The memories' citations checked against the repository: what was asked again, what became stale. */
  citations: CitationReport | undefined;
}

/** Load: the vault, the summarizer, the commit session, the citations' state; the context every later stage is handed. */
async function openBuild(options: BuildOptions, config: Config, pool: BuildPool | undefined, started: number): Promise<OpenedBuild> {
  const clock = new StageClock();
  const dryRun = options.dryRun ?? false;
  const vaultDir = path.resolve(options.root, config.vault);
  const stateDir = path.join(options.root, '.memvault');
  ensureVaultInside(options.root, vaultDir, Object.keys(config.streams)); // no writes through links (util/inside.ts)
  // Before loading: a missing key or a broken prompt file fails fast, whatever the size of the vault.
  const configured = options.summarizer ?? createSummarizer(config, options.env, { root: options.root, dryRun });
  // A dry run calls no model: placeholders of the tier's budget, made here (estimate.ts).
  const estimate = dryRun ? await import('./estimate.js') : undefined;
  const summarizer = estimate ? estimate.estimatingSummarizer(configured) : configured;
  const loaded = await (options.loader ?? loadVault)({
    ...vaultLoadOptions(options.root, config),
    ...(options.env ? { env: options.env } : {}),
    ...(pool ? { pool } : {}),
    ...(options.onParse ? { onParse: options.onParse } : {}),
  });
  const parsedAtLoad = loaded.content.parsed;
  const regenerate = resolveRegenerate(options.regenerate ?? [], vaultDir, loaded.state.streams.values());
  const { session, recordLook } = await openCommit(options, config, vaultDir, stateDir);
  const loadMs = Math.round(performance.now() - started);
  // Under the lock, no other build writes: every temp file of a killed build can go (housekeeping.ts).
  const housekeeping = dryRun ? [] : removeLeftoverTemps(vaultDir, stateDir, loaded.state.streams.keys());
  const hasWaterfall = [...loaded.state.streams.keys()].some((name) => config.streams[name]?.waterfall === true);
  const waterfall = hasWaterfall ? await import('./waterfall/build.js') : undefined;
  // Duplicates and forgotten memories leave the package's detail (left-out.ts: usage counts are read here, the plan stays pure).
  const leftOut = new Map(
    [...loaded.state.streams.values()].map((s) => [s.name, leftOutOf(options.root, vaultDir, config, s, options.now)]),
  );
  // Citations checked against the repository (src/citations/): stale memories are marked in the package and INDEX.md.
  const { runCitationStep, verifyRepoOf } = await import('../citations/build-step.js');
  const citations = await runCitationStep({
    root: options.root,
    vaultDir,
    streams: loaded.state.streams.values(),
    now: options.now,
    dryRun,
    repo: verifyRepoOf(options.root, config),
  });
  // A worker thread would make its own summarizer: a dry run's placeholders are made here.
  const rollups = dryRun ? undefined : rollupWorkersOn(pool);
  const writer = estimate ? estimate.dryRunWriter(vaultDir) : diskWriter(vaultDir);
  const ctx: BuildContext = {
    options,
    config,
    vaultDir,
    stateDir,
    loaded,
    summarizer,
    writer,
    rollups,
    leftOut,
    citationNotes: citations.notes,
    clock,
  };
  return {
    ctx,
    dryRun,
    pool,
    clock,
    started,
    loadMs,
    parsedAtLoad,
    regenerate,
    session,
    recordLook,
    housekeeping,
    waterfall,
    citations: citations.report,
  };
}

/** The commit session, when this build may commit, and the look for the record's uncommitted shards it starts. */
async function openCommit(
  options: BuildOptions,
  config: Config,
  vaultDir: string,
  stateDir: string,
): Promise<Pick<OpenedBuild, 'session' | 'recordLook'>> {
  // isomorphic-git is loaded only when a commit may happen (~150-300 ms of start-up otherwise).
  if (options.dryRun || !(options.commit ?? config.git.commit)) return { session: undefined, recordLook: undefined };
  const { openCommitSession } = await import('../git/commit.js');
  const session = await openCommitSession({ vaultDir, stateDir, enabled: true, author: config.git.author, env: options.env });
  // Git looks for the record's uncommitted shards beside the plan and the rollups, not after the record is written.
  const recordLook =
    !('status' in session) && config.git.record
      ? (await import('../store/committed-record-write.js')).lookForUncommittedRecord(vaultDir, options.env)
      : undefined;
  return { session, recordLook };
}

/**
 * Plan: `planBuild`, pure, from the loaded vault, the config, `now` and the outputs on disk; a dry run's costs
 * estimated on the way (estimate.ts).
 */
async function planStage(opened: OpenedBuild): Promise<{ plan: BuildPlan; memo: DerivedMemo; ms: number }> {
  const { ctx, dryRun, waterfall } = opened;
  const { options, config, loaded, summarizer, vaultDir } = ctx;
  const estimate = dryRun ? await import('./estimate.js') : undefined;
  // Whole-vault input hashes kept from the last build that left the parse cache as this one found it.
  const memo = DerivedMemo.open(ctx.stateDir, loaded.cache, config);
  const planStarted = performance.now();
  const plan = planBuild({
    config,
    state: loaded.state,
    now: options.now,
    force: options.force ?? false,
    ...(options.through !== undefined ? { through: options.through } : {}),
    regenerate: opened.regenerate,
    generator: { provider: summarizer.provider, model: summarizer.model, promptId: promptIdsOf(summarizer) },
    manifests: new Map([...loaded.state.streams.keys()].map((name) => [name, manifestOnDisk(vaultDir, name)])),
    packageFirst: options.packageFirst === true && !dryRun,
    ...(ctx.leftOut ? { leftOut: ctx.leftOut } : {}),
    ...(ctx.citationNotes ? { citationNotes: ctx.citationNotes } : {}),
    memo,
    ...(waterfall
      ? { planWaterfall: (stream: StreamState) => waterfall.planWaterfallStream(stream, config, { force: false, rebuild: false }) }
      : {}),
    ...(estimate
      ? { estimate: (stream: StreamState, streamPlan: StreamPlan) => estimate.estimateCost(estimateInput(stream, streamPlan, ctx)) }
      : {}),
  });
  return { plan, memo, ms: Math.round(performance.now() - planStarted) };
}

/** What the dry run's cost estimate of one stream is handed. */
function estimateInput(stream: StreamState, streamPlan: StreamPlan, ctx: BuildContext): EstimateInput {
  return {
    stream,
    planned: streamPlan.planned,
    dailyJobs: streamPlan.finest.jobs,
    rollup: rollupContextOf(stream, new Map(stream.memories.map((m) => [m.id, m])), ctx),
    summarizer: ctx.summarizer,
    budgets: streamPlan.context.budgets,
    longtermThrough: streamPlan.bands.longtermThrough,
  };
}

/**
 * Near-duplicates among the memories of the days this build summarizes: nothing to compare on a no-change build.
 * On a running pool (a cold build) the look runs on a build thread beside the rollups (`found` is awaited after them);
 * in an edit's build of a large vault, on its scan thread (build-pool.ts `nearDuplicatesBeside`), also beside them;
 * else here, now, before the streams are applied. Its warnings follow the plan's in the report.
 */
async function lookForNearDuplicates(plan: BuildPlan, opened: OpenedBuild): Promise<{ found: Promise<Diagnostic[][]> }> {
  const { ctx, pool } = opened;
  const summarized = plan.streams.filter((s) => s.finest.jobs.length > 0);
  if (summarized.length === 0) {
    pool?.stopScanThread(); // nothing to look at: the large vault's scan thread is not kept
    return { found: Promise.resolve([]) };
  }
  const { nearDuplicateWarnings, BUILD_WINDOW_DAYS } = await import('../maintain/build-check.js');
  const look = summarized.map((s) => {
    const days = new Set(s.finest.jobs.map((job) => job.period));
    const memories = newestForLook(ctx.loaded.state.streams.get(s.name)?.memories ?? [], days, BUILD_WINDOW_DAYS);
    return { name: s.name, memories, days };
  });
  if (pool?.started && !opened.dryRun) {
    pool.stopScanThread();
    const found = Promise.all(look.map((l) => pool.nearDuplicates(ctx.vaultDir, l.name, l.memories, l.days)));
    found.catch(() => {}); // awaited after the rollups; a failure then is the build's
    return { found };
  }
  // An edit's build of a large vault: on its scan thread, beside the rollups, when a core is free for it; here if that
  // thread failed.
  if (pool?.looksBeside && !opened.dryRun && coreToSpare()) {
    const here = (l: (typeof look)[number]) => nearDuplicateWarnings(ctx.vaultDir, l.name, l.memories, l.days);
    const found = Promise.all(look.map((l) => pool.nearDuplicatesBeside(ctx.vaultDir, l.name, l.memories, l.days).catch(() => here(l))));
    found.catch(() => {}); // awaited after the rollups; a failure then is the build's
    return { found };
  }
  pool?.stopScanThread();
  const warnings = opened.clock.time('near-duplicates', () =>
    look.map((l) => nearDuplicateWarnings(ctx.vaultDir, l.name, l.memories, l.days)),
  );
  return { found: Promise.resolve(warnings) };
}

/** Applies the plan stream after stream: its waterfall, then its calendar tiers, archive and package. */
async function applyStreams(plan: BuildPlan, opened: OpenedBuild): Promise<{ applied: StreamOutcome[]; indexInputs: StreamIndexInput[] }> {
  const { ctx, waterfall } = opened;
  const { config, vaultDir, loaded, summarizer, options } = ctx;
  const applied: StreamOutcome[] = [];
  const indexInputs: StreamIndexInput[] = [];
  for (const { name, calendar, stream } of plan.order) {
    const waterfallPlan = plan.waterfall.find((w) => w.stream === name);
    const run = { config, vaultDir, loaded, summarizer, now: options.now, force: false, writer: ctx.writer };
    const waterfallReport = waterfallPlan && waterfall ? await waterfall.applyWaterfall(stream, waterfallPlan, run) : undefined;
    const streamPlan = plan.streams.find((s) => s.name === name);
    const unchanged = (waterfallReport?.written.length ?? 0) === 0;
    const applyStarted = performance.now();
    const outcome = calendar && streamPlan ? await applyCalendar(stream, streamPlan, ctx, unchanged) : undefined;
    if (outcome) opened.clock.add('apply', performance.now() - applyStarted);
    applied.push({ ...(waterfallReport ? { waterfall: waterfallReport } : {}), ...(outcome ? { calendar: outcome } : {}) });
    indexInputs.push({
      name,
      memories: stream.memories,
      summaries: [...stream.summaries.values()],
      held: outcome?.report.held ?? [],
      deferred: outcome?.report.deferred ?? [],
      manifest: outcome?.manifest,
      citationNotes: ctx.citationNotes,
    });
  }
  return { applied, indexInputs };
}

/** What the vault-wide writes after the streams did. */
interface OutputsWritten {
  indexWritten: string[];
  indexMs: number;
  usageWritten: string[];
  /** The committed record's module, when the record is kept in this repository (it lists its uncommitted files). */
  record: typeof import('../store/committed-record-write.js') | undefined;
  /** The record's shards `writeRecord` wrote or removed (vault paths). */
  recordWritten: string[];
  /** Done when git has stored the blobs of what the build wrote, ahead of the commit (git/commit.ts `storeAhead`). */
  blobsStored: Promise<void>;
  recordMs: number;
  search?: IndexReport;
  searchNotes: Diagnostic[];
}

/**
 * The index, the usage folds, the committed record, the parse cache and the search index: each after the streams.
 * A dry run writes the index into its recording writer and skips the rest: they are written outside the vault's
 * generated files (`.memvault/`, usage.json) and say nothing a dry run reports.
 */
async function writeOutputs(
  opened: OpenedBuild,
  memo: DerivedMemo,
  indexInputs: readonly StreamIndexInput[],
  applied: readonly StreamOutcome[],
): Promise<OutputsWritten> {
  const { ctx, dryRun } = opened;
  const { options, config, loaded, vaultDir } = ctx;
  const indexStarted = performance.now();
  const indexWritten = writeIndex(indexInputs, loaded, vaultDir, ctx.writer, memo);
  const indexMs = Math.round(performance.now() - indexStarted);
  // This clone's usage log, folded into each stream's usage.json, is committed with the build (src/usage/fold.ts).
  const usageWritten = dryRun ? [] : foldUsage(options.root, vaultDir, [...loaded.state.streams.values()]);
  // The committed record lets a fresh clone skip what it does not summarize (vault/committed-record.ts): kept current in a
  // repository also with commits off (`git add vault` takes it), committed with the build's files, never listed as written.
  // Written before the parse cache is saved: the heading spans it finds are kept in the cache's entries.
  const recordModule = dryRun || !config.git.record ? undefined : await import('../store/committed-record-write.js');
  const record = recordModule && (await import('../git/repo.js')).findRepo(vaultDir) !== undefined ? recordModule : undefined;
  // Git stores the blobs of what the build wrote while the record is written, and the record's after it (storeAhead).
  const storeAhead = opened.session && !('status' in opened.session) ? (await import('../git/commit.js')).storeAhead : undefined;
  const streamsWritten = applied.flatMap((s) => [...(s.waterfall?.written ?? []), ...(s.calendar?.written ?? [])]);
  const stored = [storeAhead?.(opened.session, [...streamsWritten, ...indexWritten, ...usageWritten])];
  const recordStarted = performance.now();
  const recordWrite = record
    ? await record.writeRecord(vaultDir, indexInputs, loaded.cache, config.timezone, ctx.stateDir, ctx.options.env)
    : undefined;
  const recordWritten = recordWrite?.written ?? [];
  const recordMs = performance.now() - recordStarted;
  stored.push(storeAhead?.(opened.session, recordWritten));
  if (options.saveCache !== false && !dryRun) {
    loaded.cache.save();
    memo.save();
    // The record's state is vouched for once the entries it was written from are saved: the next build looks at fewer shards.
    if (recordWrite) record?.keepRecordBasis(ctx.stateDir, recordWrite.basis, loaded.cache);
  }
  const blobsStored = Promise.all(stored).then(() => undefined);
  if (dryRun) return { indexWritten, indexMs, usageWritten, record, recordWritten, recordMs, blobsStored, searchNotes: [] };
  // The search index follows the vault by content hash: what this build loaded or wrote that changed is re-indexed, nothing else.
  // A fresh clone has no index: the first search builds it (indexing every document here would cost the whole history).
  const sync = await import('../search/sync.js');
  const searchStarted = performance.now();
  const search = await sync.syncSearch(options.root, loaded, config);
  opened.clock.add('search', performance.now() - searchStarted);
  // A damaged or foreign index file was rebuilt, or the index could not be written: said once, never a failure.
  const searchNotes = sync.searchNotes(search);
  return { indexWritten, indexMs, usageWritten, record, recordWritten, recordMs, blobsStored, ...(search ? { search } : {}), searchNotes };
}

/** Commit: the report's files in one commit (pipeline/commit.ts), what is left uncommitted recorded; then the final timings. */
async function commitStage(
  report: BuildReport,
  opened: OpenedBuild,
  outputs: OutputsWritten,
  indexInputs: readonly StreamIndexInput[],
  gc: ReturnType<typeof watchGc>,
): Promise<BuildReport> {
  const { ctx, dryRun, session, clock } = opened;
  const { options, vaultDir, stateDir, loaded } = ctx;
  // A build that lost its lock commits nothing: another one may have written the same files meanwhile.
  assertLockHeld();
  const commitStarted = performance.now();
  // What earlier builds left uncommitted goes into this commit; what this one leaves uncommitted is recorded (pending.ts).
  const pending = await import('./pending.js');
  let commit: CommitOutcome | null = null;
  if (session) {
    const earlier = pending.pendingCommit(pending.readPending(stateDir), report.written);
    const recordPaths = outputs.record && opened.recordLook ? await opened.recordLook.settle(outputs.recordWritten) : [];
    const committed = { ...report, written: [...report.written, ...recordPaths] };
    await outputs.blobsStored;
    commit = await (await import('./commit.js')).commitBuild(session, committed, indexInputs, options.now, earlier);
  } else if (!dryRun) commit = { status: 'disabled', note: 'commit disabled (--no-commit or git.commit: false)' };
  if (!dryRun) pending.settlePending(stateDir, vaultDir, report, commit);
  // The commit step includes writing the record (done before the parse cache was saved).
  const commitMs = Math.round(performance.now() - commitStarted + outputs.recordMs);
  const parsed = loaded.stats.parsed + loaded.content.parsed - opened.parsedAtLoad;
  const ms = Math.round(performance.now() - opened.started);
  if (dryRun) return finishReport(report, { commit, parsed, commitMs, ms });
  const { load, plan, package: packageMs, index } = report.stats;
  clock.merge({ load, plan, package: packageMs, index, commit: commitMs, 'gc.main': gc.take() });
  if (opened.pool) clock.merge(opened.pool.stageMs.ms);
  return finishReport(report, { commit, parsed, commitMs, ms, stages: clock.rounded() });
}

/** The summarizer's prompt id per tier, worked out once per build: planning asks for it for every period (1,100+ dailies). */
function promptIdsOf(summarizer: Summarizer): (tier: CalendarTier) => string {
  const ids = new Map<CalendarTier, string>();
  return (tier) => {
    let id = ids.get(tier);
    if (id === undefined) ids.set(tier, (id = summarizer.promptId(tier)));
    return id;
  };
}

/**
 * The most memories a build's near-duplicate look reads (issue 29): it reads and shingles every memory of the
 * summarized days and the `BUILD_WINDOW_DAYS` before them, and one day an agent fills with a memory per step holds
 * 100,000 (a one-memory addition read them all again, ~5 s at 10,000). Above the cap it looks at the newest of them:
 * a copy is most often written soon after its original (`memvault consolidate` compares the whole stream).
 */
export const MAX_LOOKED_AT = 2000;

/**
 * `memories` (in date order) as the look sees them: those of `days` and the `windowDays` before each (the look
 * compares no other; a thread is sent these alone), the newest `MAX_LOOKED_AT` of them when they are more.
 */
export function newestForLook(memories: readonly Memory[], days: ReadonlySet<string>, windowDays: number): readonly Memory[] {
  const window = new Set<string>();
  for (const day of days) for (let back = 0; back <= windowDays; back++) window.add(addDays(day, -back));
  const inWindow = memories.filter((memory) => window.has(memory.day));
  return inWindow.length <= MAX_LOOKED_AT ? inWindow : inWindow.slice(-MAX_LOOKED_AT);
}
