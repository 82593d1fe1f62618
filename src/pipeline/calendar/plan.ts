import nodePath from 'node:path';
import type { TierBudget } from '../../config/schema.js';
import { calendarTier, COARSEST_TIER, FINEST_TIER, isCalendarTier, isSingleSummaryTier, summaryId } from '../../time/tiers.js';
import { sha256, stableStringify } from '../../util/hash.js';
import { UserError } from '../../util/errors.js';
import type { CalendarTier, Memory, SourceRef, Summary, Tier } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import type { DerivedMemo } from '../../store/derived-memo.js';
import { CappedMemo } from '../../util/memo.js';

/**
 * Stage 2, plan: which summaries are missing or stale. Pure functions of the
 * memories, the summaries on disk, the generator and the clock; one call per
 * tier, because a tier's inputs are the outputs of the tier below.
 */

/** One summary to (re)generate. */
export interface RollupJob {
  /** A calendar tier here; the waterfall (waterfall.ts) builds its jobs through the same `runRollup`. */
  tier: Tier;
  stream: string;
  period: string;
  start: string;
  end: string;
  /** Vault-relative path of the summary. */
  path: string;
  /** Inputs in chronological order, pinned by content hash. */
  sources: SourceRef[];
  /** Raw memories underneath. */
  memories: number;
  inputHash: string;
  reason: 'missing' | 'stale' | 'forced' | 'regenerate';
  existing?: Summary;
  /** Long-term only: every monthly folded in, after this job. */
  folded?: SourceRef[];
}

/** A summary left alone on purpose, with why. */
export interface HeldSummary {
  path: string;
  status: 'edited' | 'edited, stale';
}

export interface TierPlan {
  jobs: RollupJob[];
  held: HeldSummary[];
  /** Periods that could not be planned yet (an input is missing), with why. */
  deferred: { period: string; reason: string }[];
}

export interface PlanContext {
  stream: string;
  /** Periods ending on or before this day are complete (default: yesterday; `--through` moves it). */
  horizon: string;
  /** Also summarize incomplete periods and regenerate fresh ones. */
  force: boolean;
  /** `--regenerate`: summaries (vault-relative paths) to generate again even if a person edited them; the edit goes to `history/`. */
  regenerate?: ReadonlySet<string>;
  /** Identity of the summarizer, part of every input hash. */
  generator: { provider: string; model: string; promptId: (tier: CalendarTier) => string };
  budgets: Record<CalendarTier, TierBudget>;
  /** Input hashes kept from the previous build while the parse cache is unchanged (derived-memo.ts); none: worked out. */
  memo?: DerivedMemo;
}

/** A period as the planner weighs it: its range, its inputs pinned by hash, its memories. */
export interface Candidate {
  period: string;
  start: string;
  end: string;
  sources: SourceRef[];
  memories: number;
  folded?: SourceRef[];
  /** Sources the input hash is computed from, when not `sources` (long-term). */
  hashSources?: SourceRef[];
}

/** The input hash: equal hash, equal summary, no regeneration. */
export function inputHashOf(tier: CalendarTier, period: string, sources: readonly SourceRef[], ctx: PlanContext): string {
  const { provider, model } = ctx.generator;
  const prompt = ctx.generator.promptId(tier);
  const budget = ctx.budgets[tier];
  const compute = (): string => {
    // The canonical form is written once: it is the memo key (watch mode plans again with the same inputs) and what is
    // hashed (`hashValue(v)` is `sha256(stableStringify(v))`). A separate plain key cost as much as the hash itself.
    const canonical = stableStringify({ tier, period, sources, generator: { provider, model, prompt }, budget });
    return inputHashes.get(canonical, () => sha256(canonical));
  };
  if (!ctx.memo) return compute();
  // Besides the cache's entries and the config (budgets): the stream (ids repeat across streams), the summarizer, and
  // which sources. A period's sources are what the cache gives it, cut short only when `now` falls inside it (a prefix):
  // named by number, first and last id (their hashes are the cache's).
  const key = JSON.stringify([ctx.stream, tier, period, provider, model, prompt, sources.length, sources[0]?.id, sources.at(-1)?.id]);
  return ctx.memo.value('period', key, compute);
}

const inputHashes = new CappedMemo<string, string>(50_000);

/** Each complete candidate's fate: a job (missing, stale, forced, regenerate), held (a person edited it), or nothing (fresh). */
export function decide(
  tier: CalendarTier,
  candidates: readonly Candidate[],
  existing: ReadonlyMap<string, Summary>,
  ctx: PlanContext,
): TierPlan {
  const plan: TierPlan = { jobs: [], held: [], deferred: [] };
  for (const candidate of candidates) {
    const isComplete = ctx.force || candidate.end <= ctx.horizon;
    if (!isComplete) continue;
    const path = vaultPaths.summary(ctx.stream, tier, candidate.period);
    const inputHash = inputHashOf(tier, candidate.period, candidate.hashSources ?? candidate.sources, ctx);
    const current = existing.get(path);
    // An archived summary is regenerated where it lies.
    const regenerate = ctx.regenerate?.has(path) === true || (current !== undefined && ctx.regenerate?.has(current.path) === true);
    const { hashSources: _ignored, ...fields } = candidate;
    const base = { tier, stream: ctx.stream, path: current?.path ?? path, inputHash, ...fields };
    if (!current) {
      plan.jobs.push({ ...base, reason: 'missing' });
      continue;
    }
    const fresh = current.meta.input_hash === inputHash;
    if (regenerate) {
      plan.jobs.push({ ...base, reason: 'regenerate', existing: current });
      continue;
    }
    if (current.bodyHash !== current.meta.output_hash) {
      // A person edited this summary: never overwrite it silently.
      plan.held.push({ path: current.path, status: fresh ? 'edited' : 'edited, stale' });
      continue;
    }
    if (!fresh) plan.jobs.push({ ...base, reason: 'stale', existing: current });
    else if (ctx.force) plan.jobs.push({ ...base, reason: 'forced', existing: current });
  }
  return plan;
}

/** Daily summaries: one per day with memories. */
export function planDailies(memories: readonly Memory[], existing: ReadonlyMap<string, Summary>, ctx: PlanContext): TierPlan {
  existing = summariesAtHome(existing, ctx.stream);
  const byDay = groupBy(memories, (memory) => memory.day);
  const candidates: Candidate[] = [...byDay].map(([day, dayMemories]) => ({
    period: day,
    start: day,
    end: day,
    sources: dayMemories.map((memory) => ({ id: memory.id, sha256: memory.sha256 })),
    memories: dayMemories.length,
  }));
  return decide(FINEST_TIER, candidates, existing, ctx);
}

/**
 * The periods of a tier with a period per folder file made from the tier below (weekly, monthly: the tier table,
 * time/tiers.ts), each with its inputs named: the finer periods inside it that hold memories (a week's dailies; a
 * month's weeklies, the weeks whose Thursday falls in it) and the home paths of their summaries. In period order.
 */
export function periodsFromFiner(
  tier: CalendarTier,
  memories: readonly Memory[],
  stream: string,
): Map<string, { period: string; path: string }[]> {
  const row = calendarTier(tier);
  const finer = calendarTier(row.finer as CalendarTier);
  const parts = [...new Set(memories.map((memory) => finer.periodOf(memory.day)))].sort();
  // Each finer period lies inside one period of this tier (test/time/tiers.test.ts): its first day says which.
  const groups = groupBy(parts, (part) => row.periodOf(finer.rangeOf(part).start));
  const pathOfPart = (part: string) => vaultPaths.summary(stream, finer.name as CalendarTier, part);
  return new Map([...groups].map(([period, inside]) => [period, inside.map((part) => ({ period: part, path: pathOfPart(part) }))]));
}

/**
 * A period made from finer summaries (`inputs`, by period and home path), as a candidate from the summaries in
 * `existing` (at home: `summariesAtHome`), or why it cannot be one yet (an input has no summary).
 */
export function candidateFromFiner(
  period: string,
  range: { start: string; end: string },
  inputs: readonly { period: string; path: string }[],
  existing: ReadonlyMap<string, Summary>,
): Candidate | { missing: string } {
  const summaries = inputs.map((input) => existing.get(input.path));
  const missing = inputs.filter((_, i) => summaries[i] === undefined).map((input) => input.period);
  if (missing.length > 0) return { missing: `no summary yet for ${missing.join(', ')}` };
  const found = summaries as Summary[];
  return {
    period,
    ...range,
    sources: found.map((summary) => sourceRefOf(summary)),
    memories: found.reduce((sum, summary) => sum + summary.meta.memories, 0),
  };
}

/** The summaries of the tier the long-term summary folds, of `stream`, up to month `through`, in period order. */
export function foldableMonthlies(summaries: Iterable<Summary>, through: string, stream: string): Summary[] {
  const foldedTier = calendarTier(COARSEST_TIER).finer;
  return [...summaries]
    .filter((summary) => summary.meta.tier === foldedTier && summary.meta.stream === stream && summary.meta.period <= through)
    .sort((a, b) => (a.meta.period < b.meta.period ? -1 : 1));
}

/**
 * The long-term summary's fate: previous long-term + the monthlies that left the package window (`foldableMonthlies`,
 * months ≤ `through`). If a folded monthly changed since, the whole history is folded again from the monthlies.
 */
export function decideLongterm(monthlies: readonly Summary[], existing: ReadonlyMap<string, Summary>, ctx: PlanContext): TierPlan {
  if (monthlies.length === 0) return { jobs: [], held: [], deferred: [] };
  const target = monthlies.map(sourceRefOf);
  const current = existing.get(vaultPaths.summary(ctx.stream, COARSEST_TIER, COARSEST_TIER));
  const folded = current?.meta.folded ?? [];
  const extendsCurrent =
    folded.length > 0 &&
    folded.length < target.length &&
    folded.every((ref, i) => ref.id === target[i]!.id && ref.sha256 === target[i]!.sha256);
  const lastMonth = monthlies[monthlies.length - 1]!;
  return decide(
    COARSEST_TIER,
    [
      {
        period: lastMonth.meta.period,
        start: monthlies[0]!.meta.start,
        end: lastMonth.meta.end,
        // Progressive squash: the previous long-term plus only the newly folded monthlies.
        sources: extendsCurrent && current ? [sourceRefOf(current), ...target.slice(folded.length)] : target,
        // Freshness is judged on everything folded, whichever way it was folded.
        hashSources: target,
        memories: monthlies.reduce((sum, summary) => sum + summary.meta.memories, 0),
        folded: target,
      },
    ],
    existing,
    ctx,
  );
}

/**
 * Summaries keyed by where they belong (`main/daily/2026-02-13.md`), archived
 * ones (`main/archive/2026-Q1/daily/2026-02-13.md`) included unless a live
 * one is there: an archived summary is still the summary of its period, fresh
 * or stale like any other, so archiving never causes a regeneration.
 */
export function summariesAtHome(existing: ReadonlyMap<string, Summary>, stream: string): ReadonlyMap<string, Summary> {
  let archived: [string, Summary][] | undefined;
  for (const [key, summary] of existing) if (summary.path.startsWith(`${stream}/archive/`)) (archived ??= []).push([key, summary]);
  if (!archived) return existing;
  const out = new Map(existing);
  for (const [key, summary] of archived) {
    const { tier, period } = summary.meta;
    if (!isCalendarTier(tier) || isSingleSummaryTier(tier)) continue;
    out.delete(key);
    const home = vaultPaths.summary(stream, tier, period);
    if (!out.has(home)) out.set(home, summary);
  }
  return out;
}

/** How a summary is referenced as a source: `<tier>/<period>` and the file's hash. */
export function sourceRefOf(summary: Summary): SourceRef {
  return { id: summaryId(summary.meta.tier, summary.meta.period), sha256: summary.sha256 };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * `--regenerate PATH…`: absolute paths → the vault-relative paths of the
 * generated summaries they name. Throws a UserError for anything that is not
 * a loaded summary, before the build changes anything.
 */
export function resolveRegenerate(
  paths: readonly string[],
  vaultDir: string,
  streams: Iterable<{ summaries: ReadonlyMap<string, Summary> }>,
): Set<string> {
  const known = new Set<string>();
  for (const stream of streams) for (const summary of stream.summaries.values()) known.add(summary.path);
  const out = new Set<string>();
  for (const absolute of paths) {
    const relative = relativePosix(vaultDir, absolute);
    if (relative === undefined || !known.has(relative)) {
      throw new UserError('cli/regenerate', `--regenerate \`${absolute}\` is not a generated summary of the vault`);
    }
    out.add(relative);
  }
  return out;
}

function relativePosix(dir: string, file: string): string | undefined {
  const relative = nodePath.relative(dir, file);
  if (relative.startsWith('..') || nodePath.isAbsolute(relative)) return undefined;
  return relative.split(nodePath.sep).join('/');
}
