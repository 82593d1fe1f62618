import { calendarTier, isSingleSummaryTier } from '../../time/tiers.js';
import type { CalendarTier, Memory, Summary } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import {
  candidateFromFiner,
  decide,
  decideLongterm,
  foldableMonthlies,
  type HeldSummary,
  type PlanContext,
  periodsFromFiner,
  type RollupJob,
  summariesAtHome,
  type TierPlan,
} from './plan.js';

/**
 * The tiers above the finest, planned once (docs/build-plan.md). A weekly's
 * input hash is made of its dailies' file hashes, which exist only once the
 * dailies are written; so the plan names each period's inputs (`weekly
 * 2026-W07 from these dailies`), known from the memories' days and the tier
 * table, and says why the period is looked at. The apply step then resolves
 * exactly those periods against the summaries written by then
 * (`resolveTier`): it hashes the inputs and makes the summary, leaves it
 * (unchanged: its inputs came out the same), holds it (a person edited it)
 * or defers it (an input failed). It never finds a period the plan did not
 * name.
 */

/** Why a period of a tier above the finest is in the plan. */
export type PlannedReason = RollupJob['reason'] | 'inputs change';

/** An input of a planned period: a finer summary by period and vault-relative path (home path; long-term: where it is). */
export interface NamedInput {
  period: string;
  path: string;
}

/** A period of a tier above the finest that the apply step resolves once the tier below is written. */
export interface PlannedPeriod {
  tier: CalendarTier;
  period: string;
  start: string;
  end: string;
  /** Its inputs, in order. The long-term summary's are the monthlies it may fold (those that exist then are folded). */
  inputs: NamedInput[];
  /** `inputs change` (a summary it is made from is planned), or its own state as the vault stands: `missing`, `stale`, `forced`, `regenerate`. */
  reason: PlannedReason;
}

/** A period left alone whatever the apply step finds: its inputs are not planned (an edited summary, or one waiting for an input). */
export interface SettledPeriod {
  period: string;
  held?: HeldSummary;
  /** Why it waits (an input has no summary). */
  deferred?: string;
}

/** One tier above the finest, planned. */
export interface CoarserTierPlan {
  tier: CalendarTier;
  /** The periods the apply step resolves, in period order. */
  periods: PlannedPeriod[];
  /** The periods settled now, in period order. */
  settled: SettledPeriod[];
  /** Edited summaries as the vault stands (the dry run lists them), planned periods included. */
  held: HeldSummary[];
}

/** What the apply step does with a tier's planned periods: `TierPlan`'s jobs, held and deferred, and those found unchanged. */
export interface ResolvedTier extends TierPlan {
  unchanged: PlannedPeriod[];
}

/** What a tier above the finest is planned from. */
export interface CoarserTierInput {
  /** The memories summaries are made of (copies marked `duplicate_of` left out). */
  memories: readonly Memory[];
  /** The stream's summaries as the vault stands. */
  summaries: ReadonlyMap<string, Summary>;
  /** The periods of the tier below that this build writes. */
  below: ReadonlySet<string>;
  /** The last month the long-term summary folds (`Bands.longtermThrough`). */
  longtermThrough: string;
}

/**
 * Plans a tier above the finest. A period is planned when one of its inputs is (`inputs change`) or when it needs a
 * summary as the vault stands.
 */
export function planCoarserTier(tier: CalendarTier, input: CoarserTierInput, ctx: PlanContext): CoarserTierPlan {
  const plan: CoarserTierPlan = { tier, periods: [], settled: [], held: [] };
  const existing = inputsOf(tier, input.summaries, ctx.stream);
  for (const shaped of periodsOf(tier, input, ctx)) {
    const now = resolvePeriod(shaped, existing, input.longtermThrough, ctx);
    plan.held.push(...now.held);
    const touched = shaped.inputs.some((named) => input.below.has(named.period));
    const job = now.jobs[0];
    if (touched || job) plan.periods.push({ ...shaped, reason: touched ? 'inputs change' : job!.reason });
    else if (now.held[0]) plan.settled.push({ period: shaped.period, held: now.held[0] });
    else if (now.deferred[0]) plan.settled.push({ period: shaped.period, deferred: now.deferred[0].reason });
  }
  return plan;
}

/** The tier's complete periods with their inputs named, in period order. */
function periodsOf(
  tier: CalendarTier,
  { memories, summaries, below, longtermThrough }: CoarserTierInput,
  ctx: PlanContext,
): Omit<PlannedPeriod, 'reason'>[] {
  if (isSingleSummaryTier(tier)) {
    // The monthlies there are, and those this build writes, up to the last month the long-term summary folds.
    const finer = calendarTier(calendarTier(tier).finer as CalendarTier);
    const inputs = foldableMonthlies(summaries.values(), longtermThrough, ctx.stream).map((s) => ({ period: s.meta.period, path: s.path }));
    const known = new Set(inputs.map((input) => input.path));
    for (const period of [...below].sort()) {
      const path = vaultPaths.summary(ctx.stream, finer.name as CalendarTier, period);
      if (period <= longtermThrough && !known.has(path)) inputs.push({ period, path });
    }
    inputs.sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : 0));
    if (inputs.length === 0) return [];
    const last = inputs[inputs.length - 1]!.period;
    return [{ tier, period: last, start: finer.rangeOf(inputs[0]!.period).start, end: finer.rangeOf(last).end, inputs }];
  }
  const row = calendarTier(tier);
  const out: Omit<PlannedPeriod, 'reason'>[] = [];
  for (const [period, inputs] of periodsFromFiner(tier, memories, ctx.stream)) {
    const range = row.rangeOf(period);
    // An incomplete period waits for a later build (unless forced), whatever its inputs.
    if (ctx.force || range.end <= ctx.horizon) out.push({ tier, period, ...range, inputs });
  }
  return out;
}

/**
 * The apply step's look at a tier's planned periods, once the tier below is written: each period's inputs hashed as
 * they are now. Pure. The settled periods keep their place (held and deferred lists in period order).
 */
export function resolveTier(
  plan: CoarserTierPlan,
  summaries: ReadonlyMap<string, Summary>,
  longtermThrough: string,
  ctx: PlanContext,
): ResolvedTier {
  const resolved: ResolvedTier = { jobs: [], held: [], deferred: [], unchanged: [] };
  const held: { period: string; held: HeldSummary }[] = [];
  const deferred: { period: string; reason: string }[] = [];
  for (const settled of plan.settled) {
    if (settled.held) held.push({ period: settled.period, held: settled.held });
    if (settled.deferred !== undefined) deferred.push({ period: settled.period, reason: settled.deferred });
  }
  // A no-change build plans no period: the summaries are not even looked at.
  const existing = plan.periods.length > 0 ? inputsOf(plan.tier, summaries, ctx.stream) : summaries;
  for (const period of plan.periods) {
    const outcome = resolvePeriod(period, existing, longtermThrough, ctx);
    resolved.jobs.push(...outcome.jobs);
    held.push(...outcome.held.map((h) => ({ period: period.period, held: h })));
    deferred.push(...outcome.deferred);
    if (outcome.jobs.length + outcome.held.length + outcome.deferred.length === 0) resolved.unchanged.push(period);
  }
  const byPeriod = (a: { period: string }, b: { period: string }) => (a.period < b.period ? -1 : a.period > b.period ? 1 : 0);
  resolved.held = held.sort(byPeriod).map((h) => h.held);
  resolved.deferred = deferred.sort(byPeriod);
  return resolved;
}

/** The summaries a tier's periods are looked up in: at home for a tier with a folder (an archived one is still its period's). */
function inputsOf(tier: CalendarTier, summaries: ReadonlyMap<string, Summary>, stream: string): ReadonlyMap<string, Summary> {
  return isSingleSummaryTier(tier) ? summaries : summariesAtHome(summaries, stream);
}

/** One period's fate from `summaries` (as `inputsOf` gives them). */
function resolvePeriod(
  period: Omit<PlannedPeriod, 'reason'>,
  summaries: ReadonlyMap<string, Summary>,
  longtermThrough: string,
  ctx: PlanContext,
): TierPlan {
  if (isSingleSummaryTier(period.tier)) {
    const named = period.inputs.map((input) => summaries.get(input.path)).filter((summary) => summary !== undefined);
    return decideLongterm(foldableMonthlies(named, longtermThrough, ctx.stream), summaries, ctx);
  }
  const candidate = candidateFromFiner(period.period, period, period.inputs, summaries);
  if ('missing' in candidate) return { jobs: [], held: [], deferred: [{ period: period.period, reason: candidate.missing }] };
  return decide(period.tier, [candidate], summaries, ctx);
}
