import type { TierBudget } from '../config/schema.js';
import type { Summarizer, SummaryOutput, SummaryRequest } from '../llm/types.js';
import { CALENDAR_TIER_TABLE, calendarTier, COARSEST_TIER, FINEST_TIER, summaryId, tierRecord } from '../time/tiers.js';
import type { CalendarTier, StreamState } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';
import type { RollupJob } from './calendar/plan.js';
import { estimateRollup, type RollupContext } from './calendar/rollup.js';
import { RecordingWriter } from './writer.js';

/**
 * `build --dry-run` cost estimates, before anything is spent. Dailies are
 * estimated from their real sources (merge or not, the prompt as it would be
 * sent); the tiers above from what the tiers below would produce (at most
 * their budget). Output tokens are upper bounds (the tier's budget per call);
 * budget and fault retries are not included.
 */

/** What one tier of a build would spend. */
export interface TierEstimate {
  /** Summaries that would be generated. */
  summaries: number;
  /** Of those, merged without a call. */
  merges: number;
  /** Summarizer requests (0 for a summarizer that makes none, like the extractive one). */
  calls: number;
  inputTokens: number;
  /** Upper bound: the tier's budget per call. */
  outputTokens: number;
}

/** What `estimateCost` works from: the dry run's plan and the summarizer that would run it. */
export interface EstimateInput {
  stream: StreamState;
  /** Planned periods per tier (dailies planned exactly, upper tiers as the dry run lists them). */
  planned: readonly { tier: CalendarTier; period: string }[];
  dailyJobs: readonly RollupJob[];
  rollup: RollupContext;
  summarizer: Summarizer;
  budgets: Record<CalendarTier, TierBudget>;
  /** Months folded into the long-term summary (see `computeBands`). */
  longtermThrough: string;
}

/** Per tier: summaries, merges, calls and tokens a build would spend. */
export function estimateCost(input: EstimateInput): Record<CalendarTier, TierEstimate> {
  const out: Record<CalendarTier, TierEstimate> = tierRecord(() => empty());
  const calls = input.summarizer.estimateInputTokens !== undefined;
  /** Estimated size of each summary after the build, by source id (`daily/2026-02-10`). */
  const size = new Map<string, number>();
  for (const summary of input.stream.summaries.values()) {
    size.set(summaryId(summary.meta.tier, summary.meta.period), summary.meta.tokens);
  }

  for (const job of input.dailyJobs) {
    const estimate = estimateRollup(job, input.rollup);
    add(out[FINEST_TIER], estimate.merge, calls, estimate.inputTokens, estimate.merge ? 0 : estimate.outputTokens);
    size.set(summaryId(FINEST_TIER, job.period), estimate.outputTokens);
  }

  const days = [...new Set(input.stream.memories.map((memory) => memory.day))].sort();
  /** The periods of a tier that hold memories, in order. */
  const periodsWithMemories = (tier: CalendarTier): string[] => [...new Set(days.map(calendarTier(tier).periodOf))].sort();
  const planned = (tier: CalendarTier): string[] => [...new Set(input.planned.filter((p) => p.tier === tier).map((p) => p.period))].sort();

  const upper = (tier: CalendarTier, period: string, parts: string[]): void => {
    const tokens = parts.map((id) => size.get(id) ?? 0);
    const budget = input.budgets[tier];
    const sum = tokens.reduce((a, b) => a + b, 0);
    // A merge adds a heading per source and the title.
    const mergedTokens = sum + 8 * parts.length + 20;
    if (mergedTokens <= budget.target_tokens) {
      add(out[tier], true, calls, 0, 0);
      size.set(summaryId(tier, period), mergedTokens);
      return;
    }
    const overhead = calls ? promptOverhead(input, tier, period) : 0;
    add(out[tier], false, calls, overhead + sum + 12 * parts.length, budget.target_tokens);
    size.set(summaryId(tier, period), budget.target_tokens);
  };

  // The tiers with a period per file above the finest: a period's parts are the finer periods inside it.
  for (const row of CALENDAR_TIER_TABLE) {
    if (row.finer === undefined || row.folder === undefined) continue;
    const finer = calendarTier(row.finer);
    for (const period of planned(row.name))
      upper(
        row.name,
        period,
        periodsWithMemories(finer.name as CalendarTier)
          .filter((part) => row.periodOf(finer.rangeOf(part).start) === period)
          .map((part) => summaryId(finer.name as CalendarTier, part)),
      );
  }
  // The long-term summary folds the months that left the package window, onto itself when it already holds the older ones.
  if (planned(COARSEST_TIER).length > 0) {
    const foldedTier = calendarTier(COARSEST_TIER).finer as CalendarTier;
    const months = periodsWithMemories(foldedTier).filter((month) => month <= input.longtermThrough);
    const current = input.stream.summaries.get(vaultPaths.summary(input.stream.name, COARSEST_TIER, COARSEST_TIER));
    const folded = new Set((current?.meta.folded ?? []).map((ref) => ref.id));
    const fresh = months.map((month) => summaryId(foldedTier, month)).filter((id) => !folded.has(id));
    upper(
      COARSEST_TIER,
      planned(COARSEST_TIER)[0]!,
      current && fresh.length < months.length
        ? [summaryId(COARSEST_TIER, ''), ...fresh]
        : months.map((month) => summaryId(foldedTier, month)),
    );
  }
  return out;
}

/** Tokens of a tier's prompt without sources. */
function promptOverhead(input: EstimateInput, tier: CalendarTier, period: string): number {
  const budget = input.budgets[tier];
  return (
    input.summarizer.estimateInputTokens?.({
      tier,
      stream: input.stream.name,
      period,
      start: period,
      end: period,
      sources: [],
      budget: { tokens: budget.target_tokens, bytes: budget.max_bytes },
      attempt: 0,
      missing: [],
    }) ?? 0
  );
}

function add(estimate: TierEstimate, merge: boolean, calls: boolean, inputTokens: number, outputTokens: number): void {
  estimate.summaries++;
  if (merge) {
    estimate.merges++;
    return;
  }
  if (!calls) return;
  estimate.calls++;
  estimate.inputTokens += inputTokens;
  estimate.outputTokens += outputTokens;
}

function empty(): TierEstimate {
  return { summaries: 0, merges: 0, calls: 0, inputTokens: 0, outputTokens: 0 };
}

/** Opens every placeholder summary of a dry run: what holds it (a package, the index) has an estimated size. */
export const PLACEHOLDER_MARK = 'memvault dry run: placeholder';

/** A dry run's writer (writer.ts): files holding a placeholder summary are marked as estimates. */
export function dryRunWriter(vaultDir: string): RecordingWriter {
  return new RecordingWriter(vaultDir, (text) => text.includes(PLACEHOLDER_MARK));
}

/**
 * The dry run's summarizer: `real`'s names, prompt ids and estimates (so the plan, the input hashes and the estimate
 * are a build's), and instead of a summary a placeholder of about the tier's budget, made here without a call: a dry
 * run never calls a model, paid or not.
 */
export function estimatingSummarizer(real: Summarizer): Summarizer {
  return {
    provider: real.provider,
    model: real.model,
    promptId: (tier) => real.promptId(tier),
    summarize: async (request) => placeholderSummary(request),
    ...(real.estimateInputTokens ? { estimateInputTokens: (request: SummaryRequest) => real.estimateInputTokens!(request) } : {}),
    ...(real.diagnostics ? { diagnostics: real.diagnostics } : {}),
  };
}

/** Words of about one token and nine bytes each, to fill a placeholder to its budget (a little less on each retry). */
function placeholderSummary(request: SummaryRequest): SummaryOutput {
  const { tokens, bytes } = request.budget;
  const words = Math.max(1, Math.floor(0.8 ** (request.attempt + 1) * Math.min(tokens, bytes / 10)));
  const lines: string[] = [];
  for (let left = words; left > 0; left -= 12) lines.push(Array.from({ length: Math.min(12, left) }, () => 'estimate').join(' '));
  const body = `_${PLACEHOLDER_MARK} for the ${request.tier} summary of ${request.period}._\n\n${lines.join('\n')}\n`;
  return { body, usage: { calls: 0, inputTokens: 0, outputTokens: 0 } };
}
