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
import { assertLockHeld } from '../util/lock-state.js';
import { loadVault } from '../load/load.js';
import type { CalendarTier, Diagnostic, Memory, StreamState } from '../vault/model.js';
import { planBuild, plannedReport, type StreamPlan } from './build-plan.js';
import { BuildPool, vaultLoadOptions } from './workers/build-pool.js';
import { rollupWorkersOn } from './workers/rollup-pool.js';
import { StageClock, watchGc } from './build-timings.js';
import { DerivedMemo } from '../store/derived-memo.js';
import type { BuildOptions } from './build-context.js';
import type { BuildReport } from './build-report.js';
import { applyCalendar, rollupContextOf, type StreamContext } from './calendar/apply.js';
import { movedAsideReport, removeLeftoverTemps } from './housekeeping.js';
import { readManifest, writeIndex } from './outputs.js';
import { resolveRegenerate } from './calendar/plan.js';
import type { StreamIndexInput } from './vault-index.js';

export type { BuildReport, FailedRollup, ProgressEvent, StreamReport, TierStats } from './build-report.js';
export type { BuildOptions } from './build-context.js';

/**
 * `memvault build`: load, plan (build-plan.ts, pure), apply the plan stream
 * after stream (waterfall-build.ts, calendar-apply.ts: roll up, check
 * budgets, write, archive, package), then the index, the search index and
 * the commit, under the build lock; the report says what was done
 * (build-report.ts). Idempotent: with unchanged inputs it makes no
 * summarizer call and writes nothing. `--dry-run` stops at the plan.
 */

export async function build(options: BuildOptions): Promise<BuildReport> {
  const started = performance.now();
  // Worker threads for the whole build, started only by a stage with enough work (many files to parse, many rollups).
  const pool = options.pool ?? BuildPool.create();
  try {
    const config = await loadValidConfig(options.root);
    if (options.through !== undefined && !isValidDay(options.through))
      throw new UserError('cli/through', `--through \`${options.through}\` is not a date`);
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
  const gc = watchGc();
  try {
    return await buildWatched(options, config, started, pool, gc);
  } finally {
    gc.stop();
  }
}

async function buildWatched(
  options: BuildOptions,
  config: Config,
  started: number,
  pool: BuildPool | undefined,
  gc: ReturnType<typeof watchGc>,
): Promise<BuildReport> {
  const clock = new StageClock();
  const vaultDir = path.resolve(options.root, config.vault);
  ensureVaultInside(options.root, vaultDir, Object.keys(config.streams)); // no writes through links (util/inside.ts)
  // Before loading: a missing key or a broken prompt file fails fast, whatever the size of the vault.
  const summarizer = options.summarizer ?? createSummarizer(config, options.env, { root: options.root, dryRun: options.dryRun ?? false });
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
    diagnostics: [...loaded.state.diagnostics, ...(loaded.warnings ?? []), ...(summarizer.diagnostics ?? [])],
    stats: {
      files: loaded.stats.files,
      read: loaded.stats.read,
      parsed: loaded.stats.parsed,
      workerParses: loaded.stats.workerParses,
      workerRollups: 0,
      helper: pool?.scans === true && options.loader === undefined,
      ms: 0,
      load: Math.round(performance.now() - started),
      plan: 0,
      package: 0,
      index: 0,
      commit: 0,
    },
    generator: { provider: summarizer.provider, model: summarizer.model },
  };
  // Under the lock, no other build writes: every temp file of a killed build can go (housekeeping.ts).
  if (!report.dryRun)
    report.diagnostics.push(...removeLeftoverTemps(vaultDir, path.join(options.root, '.memvault'), loaded.state.streams.keys()));
  // Plan: pure, from the loaded vault, the config, `now` and the outputs on disk.
  const hasWaterfall = [...loaded.state.streams.keys()].some((name) => config.streams[name]?.waterfall === true);
  // Loaded only for waterfall streams: start-up time counts in every one-edit rebuild.
  const waterfall = hasWaterfall ? await import('./waterfall/build.js') : undefined;
  const estimate = report.dryRun ? await import('./estimate.js') : undefined;
  // Duplicates and forgotten memories leave the package's detail (left-out.ts: usage counts are read here, the plan stays pure).
  const leftOut = new Map(
    [...loaded.state.streams.values()].map((s) => [s.name, leftOutOf(options.root, vaultDir, config, s, options.now)]),
  );
  // Citations checked against the repository (src/citations/): stale memories are marked in the package and INDEX.md.
  const { runCitationStep, verifyRepoOf } = await import('../citations/build-step.js');
  const { report: citationReport, notes: citationNotes } = await runCitationStep({
    root: options.root,
    vaultDir,
    streams: loaded.state.streams.values(),
    now: options.now,
    dryRun: report.dryRun,
    repo: verifyRepoOf(options.root, config),
  });
  if (citationReport) report.citations = citationReport;
  const rollups = rollupWorkersOn(pool);
  const streamContext: StreamContext = { options, config, vaultDir, loaded, summarizer, report, rollups, leftOut, citationNotes, clock };
  // Whole-vault input hashes kept from the last build that left the parse cache as this one found it.
  const memo = DerivedMemo.open(vaultLoadOptions(options.root, config).stateDir, loaded.cache, config);
  const planStarted = performance.now();
  const plan = planBuild({
    config,
    state: loaded.state,
    now: options.now,
    force: options.force ?? false,
    ...(options.through !== undefined ? { through: options.through } : {}),
    regenerate,
    generator: { provider: summarizer.provider, model: summarizer.model, promptId: promptIdsOf(summarizer) },
    manifests: new Map([...loaded.state.streams.keys()].map((name) => [name, readManifest(vaultDir, name)])),
    packageFirst: options.packageFirst === true && !report.dryRun,
    leftOut,
    citationNotes,
    memo,
    ...(waterfall
      ? { planWaterfall: (stream: StreamState) => waterfall.planWaterfallStream(stream, config, { force: false, rebuild: false }) }
      : {}),
    ...(estimate
      ? {
          estimate: (stream: StreamState, streamPlan: StreamPlan) =>
            estimate.estimateCost({
              stream,
              planned: streamPlan.planned,
              dailyJobs: streamPlan.tiers.daily.jobs,
              rollup: rollupContextOf(stream, new Map(stream.memories.map((m) => [m.id, m])), streamContext),
              summarizer,
              budgets: streamPlan.context.budgets,
              longtermThrough: streamPlan.bands.longtermThrough,
            }),
        }
      : {}),
  });
  report.stats.plan = Math.round(performance.now() - planStarted);
  report.diagnostics.push(...plan.diagnostics);
  // Near-duplicates among the memories of the days this build summarizes: nothing to compare on a no-change build.
  const summarized = plan.streams.filter((s) => s.tiers.daily.jobs.length > 0);
  // On a running pool (a cold build) the look runs on a build thread beside the rollups; its warnings keep their place.
  const nearDuplicates = { at: report.diagnostics.length, found: Promise.resolve<Diagnostic[][]>([]) };
  if (summarized.length > 0) {
    const { nearDuplicateWarnings, BUILD_WINDOW_DAYS } = await import('../maintain/build-check.js');
    const look = summarized.map((s) => {
      const days = new Set(s.tiers.daily.jobs.map((job) => job.period));
      const memories = newestForLook(loaded.state.streams.get(s.name)?.memories ?? [], days, BUILD_WINDOW_DAYS);
      return { name: s.name, memories, days };
    });
    if (pool?.started && !report.dryRun) {
      nearDuplicates.found = Promise.all(look.map((l) => pool.nearDuplicates(vaultDir, l.name, l.memories, l.days)));
      nearDuplicates.found.catch(() => {}); // awaited after the rollups; a failure then is the build's
    } else
      clock.time('near-duplicates', () => {
        for (const l of look) report.diagnostics.push(...nearDuplicateWarnings(vaultDir, l.name, l.memories, l.days));
      });
  }
  // A dry run reports the plan; a build applies it, stream after stream: the waterfall, then the calendar tiers, archive and package.
  if (report.dryRun)
    Object.assign(
      report,
      plannedReport(plan, (p) => waterfall!.plannedWaterfallReport(p)),
    );
  const indexInputs: StreamIndexInput[] = [];
  for (const { name, calendar, stream } of report.dryRun ? [] : plan.order) {
    const waterfallPlan = plan.waterfall.find((w) => w.stream === name);
    let unchanged = true;
    if (waterfallPlan && waterfall) {
      const run = { config, vaultDir, loaded, summarizer, now: options.now, force: false, dryRun: false };
      const waterfallReport = await waterfall.applyWaterfall(stream, waterfallPlan, run);
      report.waterfall.push(waterfallReport);
      report.written.push(...waterfallReport.written);
      report.historyCopies.push(...waterfallReport.historyCopies);
      unchanged = waterfallReport.written.length === 0;
    }
    const streamPlan = plan.streams.find((s) => s.name === name);
    if (!calendar || !streamPlan) {
      indexInputs.push({
        name,
        memories: stream.memories,
        summaries: [...stream.summaries.values()],
        held: [],
        deferred: [],
        manifest: undefined,
        citationNotes,
      });
      continue;
    }
    const applyStarted = performance.now();
    const result = await applyCalendar(stream, streamPlan, streamContext, unchanged);
    clock.add('apply', performance.now() - applyStarted);
    report.streams.push(result.report);
    indexInputs.push({
      name,
      memories: stream.memories,
      summaries: [...stream.summaries.values()],
      held: result.report.held,
      deferred: result.report.deferred,
      manifest: result.manifest,
      citationNotes,
    });
  }
  report.diagnostics.splice(nearDuplicates.at, 0, ...(await nearDuplicates.found).flat());
  // Each open contradiction between facts once, at the later fact's place and naming the other; facts that cannot be read.
  // The build's view of each stream (memories up to `now`), after it is applied: an archived memory is named where it is now.
  report.diagnostics.push(...factWarnings(plan.order.map((entry) => entry.stream)));
  const indexStarted = performance.now();
  if (!report.dryRun) writeIndex(indexInputs, loaded, vaultDir, report, memo);
  report.stats.index = Math.round(performance.now() - indexStarted);
  // This clone's usage log, folded into each stream's usage.json, is committed with the build (src/usage/fold.ts).
  if (!report.dryRun) report.written.push(...foldUsage(options.root, vaultDir, [...loaded.state.streams.values()]));
  // The committed record lets a fresh clone skip what it does not summarize (vault/committed-record.ts): kept current in a
  // repository also with commits off (`git add vault` takes it), committed with the build's files, never listed as written.
  // Written before the parse cache is saved: the heading spans it finds are kept in the cache's entries.
  const record = report.dryRun || !config.git.record ? undefined : await import('../store/committed-record-write.js');
  const inRepo = record !== undefined && (await import('../git/repo.js')).findRepo(vaultDir) !== undefined;
  const recordStarted = performance.now();
  if (record && inRepo)
    await record.writeRecord(vaultDir, indexInputs, loaded.cache, config.timezone, path.join(options.root, '.memvault'));
  const recordMs = performance.now() - recordStarted;
  if (options.saveCache !== false) {
    loaded.cache.save();
    memo.save();
  }
  // The search index follows the vault by content hash: what this build loaded or wrote that changed is re-indexed, nothing else.
  if (!report.dryRun) {
    // A fresh clone has no index: the first search builds it (indexing every document here would cost the whole history).
    const sync = await import('../search/sync.js');
    const searchStarted = performance.now();
    const search = await sync.syncSearch(options.root, loaded, config);
    clock.add('search', performance.now() - searchStarted);
    if (search) report.search = search;
    // A damaged or foreign index file was rebuilt, or the index could not be written: said once, never a failure.
    report.diagnostics.push(...sync.searchNotes(search));
  }
  // The package may be written twice (`packageFirst`): listed once.
  report.written = [...new Set(report.written)];
  const moved = movedAsideReport();
  report.diagnostics.push(...moved.diagnostics, ...(summarizer.takeDiagnostics?.() ?? []));
  report.historyCopies = [...new Set([...report.historyCopies, ...moved.paths])];
  // A build that lost its lock commits nothing: another one may have written the same files meanwhile.
  assertLockHeld();
  const commitStarted = performance.now();
  // What earlier builds left uncommitted goes into this commit; what this one leaves uncommitted is recorded (project/pending.ts).
  const pending = await import('./pending.js');
  const stateDir = path.join(options.root, '.memvault');
  if (session) {
    const earlier = pending.pendingCommit(pending.readPending(stateDir), report.written);
    const recordPaths = record && inRepo && !('status' in session) ? await record.uncommittedRecord(vaultDir) : [];
    const committed = { ...report, written: [...report.written, ...recordPaths] };
    report.commit = await (await import('./commit.js')).commitBuild(session, committed, indexInputs, options.now, earlier);
  } else if (!report.dryRun) report.commit = { status: 'disabled', note: 'commit disabled (--no-commit or git.commit: false)' };
  if (!report.dryRun) pending.settlePending(stateDir, vaultDir, report, report.commit);
  // The commit step includes writing the record (done before the parse cache was saved).
  report.stats.commit = Math.round(performance.now() - commitStarted + recordMs);
  report.stats.parsed = loaded.stats.parsed + loaded.content.parsed - parsedAtLoad;
  report.stats.ms = Math.round(performance.now() - started);
  if (!report.dryRun) {
    const { load, plan, package: packageMs, index, commit } = report.stats;
    clock.merge({ load, plan, package: packageMs, index, commit, 'gc.main': gc.take() });
    if (pool) clock.merge(pool.stageMs.ms);
    report.stats.stages = clock.rounded();
  }
  return report;
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
 * `memories` (in date order) as the look sees them: all of them, unless `days` and the `windowDays` before each hold
 * more than `MAX_LOOKED_AT`.
 */
export function newestForLook(memories: readonly Memory[], days: ReadonlySet<string>, windowDays: number): readonly Memory[] {
  const window = new Set<string>();
  for (const day of days) for (let back = 0; back <= windowDays; back++) window.add(addDays(day, -back));
  const inWindow = memories.filter((memory) => window.has(memory.day));
  return inWindow.length <= MAX_LOOKED_AT ? memories : inWindow.slice(-MAX_LOOKED_AT);
}
