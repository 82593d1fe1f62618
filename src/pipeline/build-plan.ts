import type { Config } from '../config/schema.js';
import { memoriesForSummaries } from '../maintain/duplicate-marks.js';
import type { LeftOut } from '../maintain/left-out.js';
import { addDays, minuteOfDay, todayIn } from '../time/periods.js';
import { FINEST_TIER, tierRecord } from '../time/tiers.js';
import type { CalendarTier, Diagnostic, StreamState, VaultState } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';
import { type ArchiveMove, type ArchivePlan, archiveCandidates, movesDue } from './calendar/archive.js';
import { type Bands, computeBands } from './package/bands.js';
import { type BuildReport, emptyStats, type StreamReport, TIERS } from './build-report.js';
import type { TierEstimate } from './estimate.js';
import { isUpTo } from './now.js';
import type { DerivedMemo } from '../store/derived-memo.js';
import { type Manifest, packageInputHash, packageMemoriesDigest } from './package/index.js';
import { type HeldSummary, type PlanContext, planDailies, type TierPlan } from './calendar/plan.js';
import { type CoarserTierPlan, planCoarserTier } from './calendar/plan-periods.js';
import type { WaterfallReport, WaterfallStreamPlan } from './waterfall/build.js';

/**
 * The plan of a build: which summaries, compactions, packages and archive
 * moves it will write, and why. A pure function of the loaded vault, the
 * config, `now`, the generator and the outputs found on disk; `build --dry-run`
 * prints it and `build` applies it as planned (calendar/apply.ts, waterfall/build.ts).
 *
 * The dailies are exact. A weekly, monthly or long-term summary is planned
 * with its inputs named (calendar/plan-periods.ts): the periods whose inputs
 * a planned summary of the tier below changes (`inputs change`), and those
 * that need a summary as the vault stands (a changed prompt, say). Their
 * input hashes are their inputs' file hashes, so the apply step hashes them
 * once the tier below is written; it never finds work the plan did not name.
 * The archive moves are planned the same way (candidates past retention,
 * moved once the tiers above hold them), and the package is hashed again
 * only when something was written or moved before it.
 */

/** One summary the build will (re)generate. */
export interface PlannedSummary {
  tier: CalendarTier;
  period: string;
  /** `missing`, `stale`, `forced`, `regenerate`, or `inputs change` (a summary below it is regenerated). */
  reason: string;
}

/** Whether the package is written, and why. */
export interface PackagePlan {
  path: string;
  write: boolean;
  /** `missing`, `stale` (its inputs changed), `inputs change` (summaries below are regenerated or archived first), `fresh`. */
  reason: 'missing' | 'stale' | 'inputs change' | 'fresh';
  /** Input hash of the package as the vault stands (reused by the apply step when nothing changed before it). */
  inputHash: string;
  /** The manifest on disk, if any (not read when its input hash alone says the package is stale). */
  previous: Manifest | undefined;
  /** The memories' part of `inputHash` (`packageMemoriesDigest`), when the plan worked it out: the apply step reuses it. */
  memoriesDigest?: string;
}

/** A stream's manifest on disk: the input hash its end names (a hint, `readManifestInputHash`), and the whole of it. */
export interface ManifestOnDisk {
  inputHash: string | undefined;
  /** The manifest, read and checked (undefined: none, or the package file is missing). */
  read(): Manifest | undefined;
}

/** The calendar part of one stream's plan. */
export interface StreamPlan {
  name: string;
  /** Memories dated up to `now`, and after it (left for a later build). */
  memories: number;
  future: number;
  bands: Bands;
  /** The tier planner's context (horizon, force, generator, budgets). */
  context: PlanContext;
  /** The finest tier's jobs (exact), held and deferred summaries. */
  finest: TierPlan;
  /** The tiers above it, finest first: the periods the apply step resolves, with their inputs named. */
  coarser: CoarserTierPlan[];
  /** The summaries the build will generate, dailies first. */
  planned: PlannedSummary[];
  held: HeldSummary[];
  deferred: { tier: CalendarTier; period: string; reason: string }[];
  /** Moves past retention as the vault stands (the dry run lists them; the apply step makes them when nothing was written before). */
  archive: ArchiveMove[];
  /** What may move past retention once the rollups are written (the apply step moves what the tiers above hold then). */
  archivePlan: ArchivePlan;
  package: PackagePlan;
  /** Watch mode: the only stale dailies are of days the package shows in full, so it is written first as well. */
  packageFirst: boolean;
  /** Dry runs: calls and tokens per tier. */
  estimate?: Record<CalendarTier, TierEstimate>;
}

export interface BuildPlan {
  now: string;
  /** Periods ending on or before this day are complete. */
  horizon: string;
  /** Streams with calendar tiers, in vault order. */
  streams: StreamPlan[];
  /** Streams with `waterfall: true`, in vault order. */
  waterfall: WaterfallStreamPlan[];
  /** Per stream, in vault order: which kinds it has and its state up to `now`. */
  order: { name: string; calendar: boolean; waterfall: boolean; stream: StreamState }[];
  /** Memories dated after `now` (info: left out of this build). */
  diagnostics: Diagnostic[];
}

/** What `planBuild` works from. */
export interface BuildPlanInput {
  config: Config;
  state: VaultState;
  now: Date;
  force: boolean;
  /** `--through`: a day that moves the horizon. */
  through?: string;
  /** `--regenerate`, as vault-relative paths. */
  regenerate: ReadonlySet<string>;
  generator: PlanContext['generator'];
  /** The manifest on disk of each stream's package (undefined: none). */
  manifests: ReadonlyMap<string, ManifestOnDisk | undefined>;
  /** Watch mode: allow writing the package before the rollups (see `StreamPlan.packageFirst`). */
  packageFirst: boolean;
  /** Per stream, the memories the package's detail leaves out (duplicates, forgotten); none when absent. */
  leftOut?: ReadonlyMap<string, LeftOut>;
  /** Stale memories (vault path) and the line the package shows under each (src/citations/). */
  citationNotes?: ReadonlyMap<string, string>;
  /** The waterfall planner (loaded only when a stream has `waterfall: true`). */
  planWaterfall?: (stream: StreamState) => WaterfallStreamPlan;
  /** Dry runs: estimates calls and tokens of a stream's plan. */
  estimate?: (stream: StreamState, plan: StreamPlan) => Record<CalendarTier, TierEstimate>;
  /** Input hashes kept from the previous build while the parse cache is unchanged (derived-memo.ts); none: worked out. */
  memo?: DerivedMemo;
}

/** Plans a whole build. Pure: reads nothing, writes nothing. */
export function planBuild(input: BuildPlanInput): BuildPlan {
  const { config, now } = input;
  const today = todayIn(now, config.timezone);
  const minute = minuteOfDay(now, config.timezone);
  const plan: BuildPlan = {
    now: now.toISOString(),
    horizon: input.through ?? addDays(today, -1),
    streams: [],
    waterfall: [],
    order: [],
    diagnostics: [],
  };
  for (const loadedStream of input.state.streams.values()) {
    const streamConfig = config.streams[loadedStream.name] ?? { calendar: true, waterfall: false };
    if (!streamConfig.calendar && !streamConfig.waterfall) continue;
    // Memories dated after `now` wait for a later build: a build as of a past moment sees the vault as it was then.
    const stream: StreamState = { ...loadedStream, memories: loadedStream.memories.filter((m) => isUpTo(m, today, minute)) };
    for (const m of loadedStream.memories) {
      if (isUpTo(m, today, minute)) continue;
      const reason = `dated after the build's now (\`${m.date}\`): left out of this build`;
      const hint = 'a later build includes it; fix the date if it is a typo';
      plan.diagnostics.push({ path: m.path, line: 1, column: 1, severity: 'info', reason, hint, rule: 'memory/future-date' });
    }
    plan.order.push({ name: stream.name, calendar: streamConfig.calendar, waterfall: streamConfig.waterfall, stream });
    // Count-based compaction and CONTEXT.md; forcing one is `memvault compact --force`'s job, not `build --force`'s.
    if (streamConfig.waterfall && input.planWaterfall) plan.waterfall.push(input.planWaterfall(stream));
    if (streamConfig.calendar) {
      const streamPlan = planStream(stream, loadedStream.memories.length - stream.memories.length, input, plan.horizon, today);
      if (input.estimate) streamPlan.estimate = input.estimate(stream, streamPlan);
      plan.streams.push(streamPlan);
    }
  }
  return plan;
}

function planStream(stream: StreamState, future: number, input: BuildPlanInput, horizon: string, today: string): StreamPlan {
  const { config } = input;
  const context: PlanContext = {
    stream: stream.name,
    horizon,
    force: input.force,
    regenerate: input.regenerate,
    generator: input.generator,
    budgets: tierRecord((row) => config.calendar[row.budgetKey]),
    ...(input.memo ? { memo: input.memo } : {}),
  };
  const bands = computeBands(input.now, config.timezone, config.upload);
  // Copies marked `duplicate_of` are left out of summaries: a day's sources (and input hash) change, so it is rebuilt once.
  const memories = memoriesForSummaries(stream.memories);
  const finest = planDailies(memories, stream.summaries, context);
  const coarser: CoarserTierPlan[] = [];
  let below = new Set(finest.jobs.map((job) => job.period));
  for (const tier of TIERS.slice(1)) {
    const tierPlan = planCoarserTier(
      tier,
      { memories, summaries: stream.summaries, below, longtermThrough: bands.longtermThrough },
      context,
    );
    coarser.push(tierPlan);
    below = new Set(tierPlan.periods.map((p) => p.period));
  }
  const planned: PlannedSummary[] = [
    ...finest.jobs.map((job) => ({ tier: FINEST_TIER, period: job.period, reason: job.reason })),
    ...coarser.flatMap((t) => t.periods.map((p) => ({ tier: p.tier, period: p.period, reason: p.reason }))),
  ];
  const archivePlan = archiveCandidates(stream, config.calendar.retention, today, planned);
  const archive = movesDue(archivePlan, stream);
  const packagePlan = planPackage(stream, bands, input, planned.length > 0 || archive.length > 0);
  return {
    name: stream.name,
    memories: stream.memories.length,
    future,
    bands,
    context,
    finest,
    coarser,
    planned,
    held: [...finest.held, ...coarser.flatMap((t) => t.held)],
    deferred: [
      ...finest.deferred.map((d) => ({ tier: FINEST_TIER, ...d })),
      ...coarser.flatMap((t) =>
        t.settled.flatMap((s) => (s.deferred === undefined ? [] : [{ tier: t.tier, period: s.period, reason: s.deferred }])),
      ),
    ],
    archive,
    archivePlan,
    package: packagePlan,
    packageFirst: input.packageFirst && finest.jobs.length > 0 && finest.jobs.every((job) => job.start >= bands.rawFrom),
  };
}

/** The package's inputs, as `assemblePackage` takes them (without the readers). */
export function packageBase(
  stream: StreamState,
  bands: Bands,
  config: Config,
  leftOut?: LeftOut,
  citationNotes?: ReadonlyMap<string, string>,
) {
  return {
    ...(leftOut && leftOut.ids.size > 0 ? { leftOut } : {}),
    ...(citationNotes && citationNotes.size > 0 ? { citationNotes } : {}),
    stream: stream.name,
    vaultLabel: config.vault,
    bands,
    memories: stream.memories,
    summaries: stream.summaries,
    upload: config.upload,
    tokenizer: config.tokenizer,
  };
}

function planPackage(stream: StreamState, bands: Bands, input: BuildPlanInput, inputsChange: boolean): PackagePlan {
  const path = vaultPaths.package(stream.name);
  const onDisk = input.manifests.get(stream.name);
  const base = packageBase(stream, bands, input.config, input.leftOut?.get(stream.name), input.citationNotes);
  let memoriesDigest: string | undefined;
  const compute = () => packageInputHash(base, (memoriesDigest = packageMemoriesDigest(base.memories)));
  // Besides the cache's entries and the config: the bands, what is left out, and which memories are up to `now` (a prefix
  // of the stream's, named by its length and last memory).
  const last = stream.memories.at(-1);
  const key = {
    stream: stream.name,
    bands,
    leftOut: [...(base.leftOut?.ids ?? [])].sort(),
    ...(base.citationNotes ? { citations: [...base.citationNotes].sort() } : {}),
  };
  const inputHash =
    input.memo?.value('package', { ...key, memories: [stream.memories.length, last?.path, last?.sha256] }, compute) ?? compute();
  // Read whole only when its end does not already say it is stale.
  const staleByHash = onDisk?.inputHash !== undefined && onDisk.inputHash !== inputHash;
  const previous = staleByHash ? undefined : onDisk?.read();
  const fresh = previous !== undefined && previous.input_hash === inputHash;
  const reason = staleByHash ? 'stale' : previous === undefined ? 'missing' : !fresh ? 'stale' : inputsChange ? 'inputs change' : 'fresh';
  return { path, write: reason !== 'fresh', reason, inputHash, previous, ...(memoriesDigest ? { memoriesDigest } : {}) };
}

/** A dry run's report: the plan's summaries, estimates, held and deferred ones, archive moves and compactions; nothing written. */
export function plannedReport(
  plan: BuildPlan,
  waterfallReport: (plan: WaterfallStreamPlan) => WaterfallReport,
): Pick<BuildReport, 'streams' | 'waterfall' | 'archived'> {
  return {
    streams: plan.streams.map((s) => ({
      name: s.name,
      memories: s.memories,
      future: s.future,
      tiers: Object.fromEntries(TIERS.map((tier) => [tier, emptyStats()])) as StreamReport['tiers'],
      held: s.held,
      deferred: s.deferred,
      planned: s.planned,
      ...(s.estimate ? { estimate: s.estimate } : {}),
      failed: [],
      package: null,
      packagePlan: { path: s.package.path, write: s.package.write, reason: s.package.reason },
    })),
    waterfall: plan.waterfall.map(waterfallReport),
    archived: plan.streams.flatMap((s) => s.archive),
  };
}
