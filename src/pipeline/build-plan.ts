import type { Config } from '../config/schema.js';
import { memoriesForSummaries } from '../maintain/duplicate-marks.js';
import type { LeftOut } from '../maintain/left-out.js';
import { addDays, minuteOfDay, todayIn } from '../time/periods.js';
import {
  CALENDAR_TIER_TABLE,
  type CalendarTierRow,
  calendarTier,
  COARSEST_TIER,
  FINEST_TIER,
  summaryId,
  tierRecord,
} from '../time/tiers.js';
import type { CalendarTier, Diagnostic, StreamState, VaultState } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';
import { type ArchiveMove, planArchive } from './calendar/archive.js';
import { type Bands, computeBands } from './package/bands.js';
import { type BuildReport, emptyStats, type StreamReport, TIERS } from './build-report.js';
import type { TierEstimate } from './estimate.js';
import { isUpTo } from './now.js';
import type { DerivedMemo } from '../store/derived-memo.js';
import { type Manifest, packageInputHash } from './package/index.js';
import {
  type HeldSummary,
  type PlanContext,
  planDailies,
  planFromFiner,
  planLongterm,
  type RollupJob,
  type TierPlan,
} from './calendar/plan.js';
import type { WaterfallReport, WaterfallStreamPlan } from './waterfall/build.js';

/**
 * The plan of a build: which summaries, compactions, packages and archive
 * moves it will write, and why. A pure function of the loaded vault, the
 * config, `now`, the generator and the outputs found on disk; `build --dry-run`
 * prints it and `build` applies it (calendar-apply.ts, waterfall-build.ts).
 *
 * The dailies are exact. A weekly, monthly or long-term summary is planned
 * from the summaries on disk (stale ones: a changed prompt, say) plus the
 * periods whose inputs the planned dailies change (`inputs change`); the
 * apply step plans each of those tiers again from what the tier below wrote,
 * since their input hashes are the hashes of its outputs.
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
  /** Each tier as planned from the vault as it stands (see the module comment for the tiers above daily). */
  tiers: Record<CalendarTier, TierPlan>;
  /** The summaries the build will generate, dailies first. */
  planned: PlannedSummary[];
  held: HeldSummary[];
  deferred: { tier: CalendarTier; period: string; reason: string }[];
  /** Moves past retention as the vault stands (the apply step plans them again after the rollups). */
  archive: ArchiveMove[];
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

/** The tier planner of one stream (`planDailies` … `planLongterm`), for the apply step's second look at the tiers above daily. */
export function planTier(tier: CalendarTier, stream: StreamState, longtermThrough: string, ctx: PlanContext): TierPlan {
  // Copies marked `duplicate_of` are left out of summaries: a day's sources (and input hash) change, so it is rebuilt once.
  const memories = memoriesForSummaries(stream.memories);
  const row = calendarTier(tier);
  // By the tier's shape in the tier table: made from memories, one summary folding the tier below, or periods of the tier below.
  if (row.finer === undefined) return planDailies(memories, stream.summaries, ctx);
  if (row.folder === undefined) return planLongterm(stream.summaries, longtermThrough, ctx);
  return planFromFiner(tier, memories, stream.summaries, ctx);
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
  const tiers = Object.fromEntries(TIERS.map((tier) => [tier, planTier(tier, stream, bands.longtermThrough, context)])) as Record<
    CalendarTier,
    TierPlan
  >;
  const daily = tiers[FINEST_TIER];
  const planned: PlannedSummary[] = daily.jobs.map((job) => ({ tier: FINEST_TIER, period: job.period, reason: job.reason }));
  planned.push(...inputsChange(daily.jobs, context));
  // A changed monthly that is folded into the long-term summary changes it too.
  const foldedTier = calendarTier(COARSEST_TIER).finer;
  const folded = planned
    .filter((p) => p.tier === foldedTier && p.period <= bands.longtermThrough)
    .map((p) => p.period)
    .sort();
  if (folded.length > 0) planned.push({ tier: COARSEST_TIER, period: folded[folded.length - 1]!, reason: 'inputs change' });
  // The tiers above: what is stale already (a changed prompt, say), unless the dailies' changes list it.
  for (const tier of TIERS.slice(1)) {
    const listed = new Set(planned.map((p) => summaryId(p.tier, p.period)));
    for (const job of tiers[tier].jobs)
      if (!listed.has(summaryId(tier, job.period))) planned.push({ tier, period: job.period, reason: job.reason });
  }
  const archive = planArchive(stream, config.calendar.retention, today);
  const packagePlan = planPackage(stream, bands, input, planned.length > 0 || archive.length > 0);
  return {
    name: stream.name,
    memories: stream.memories.length,
    future,
    bands,
    context,
    tiers,
    planned,
    held: TIERS.flatMap((tier) => tiers[tier].held),
    deferred: daily.deferred.map((d) => ({ tier: FINEST_TIER, ...d })),
    archive,
    package: packagePlan,
    packageFirst: input.packageFirst && daily.jobs.length > 0 && daily.jobs.every((job) => job.start >= bands.rawFrom),
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
  const compute = () => packageInputHash(base);
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
  return { path, write: reason !== 'fresh', reason, inputHash, previous };
}

/** The weeks and months (the tiers above the finest with a period per file) whose inputs the planned dailies change, if those periods are complete. */
function inputsChange(dailyJobs: readonly RollupJob[], ctx: PlanContext): PlannedSummary[] {
  const out: PlannedSummary[] = [];
  let finer: CalendarTierRow = calendarTier(FINEST_TIER);
  let periods = dailyJobs.map((job) => job.period);
  for (const row of CALENDAR_TIER_TABLE.slice(1)) {
    if (row.folder === undefined) break;
    const below = finer;
    periods = [...new Set(periods.map((period) => row.periodOf(below.rangeOf(period).start)))].filter(
      (period) => ctx.force || row.rangeOf(period).end <= ctx.horizon,
    );
    out.push(...periods.map((period) => ({ tier: row.name, period, reason: 'inputs change' })));
    finer = row;
  }
  return out;
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
