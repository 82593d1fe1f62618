import type { TierBudget } from '../../config/schema.js';
import { SummarizerError } from '../../llm/faults.js';
import type { Summarizer, SummaryRequest, SummarySource, SummaryUsage } from '../../llm/types.js';
import { checkRetention, collectMustKeep, compareMissing, MAX_NAMED_MISSING, type MustKeepItem } from '../../retention/index.js';
import { countBytes, countTokens, type TokenizerName } from '../../util/tokens.js';
import type { ContentStore } from '../../load/load.js';
import type { Memory, Summary, Tier } from '../../vault/model.js';
import type { RollupJob } from './plan.js';
import { MemvaultError } from '../../util/errors.js';
import type { StageTimer } from '../build-timings.js';
import { compose, MAX_SUMMARIZED_SOURCES, mergeSources, summarizedRefs, titleOf, toSummarySource } from './rollup-sources.js';
import { keepMade, keptOrMade } from './rollup-kept.js';
import { finish, type RetentionFields, type RollupResult, retentionFields } from './rollup-result.js';
import type { KeptRollups } from '../../store/derived-memo-rollups.js';

// Sources, titles and the lossless merge live in rollup-sources.ts; their users import them from here too.
export { mergeSources, titleOf } from './rollup-sources.js';
export { demoteHeadings } from '../../vault/demote-headings.js';

/**
 * Stage 3 and 4, roll up and check budgets: builds one planned summary from
 * the tier below. Inputs that already fit the budget are merged as they are
 * (no summarizer call); otherwise the summarizer runs, and an answer over
 * budget (or cut off by max_tokens) is retried tighter, then flagged for
 * review. A rollup that cannot produce a usable summary throws `RollupError`
 * and writes nothing: a summarizer fault, answers that are all cut off, or
 * an over-budget answer that would replace a previous version (which is kept).
 */

/** What a rollup needs besides its sources: the summarizer and the budgets. */
export interface RollupSettings {
  summarizer: Summarizer;
  tokenizer: TokenizerName;
  /** Budget of each tier a job may have (the calendar tiers, or the waterfall tiers). */
  budgets: Partial<Record<Tier, TierBudget>>;
  /** Tighter retries after an over-budget answer. */
  retries: number;
  /** Times the steps of a rollup (`build --json` stats); by default none. Not sent to the build threads: they have their own. */
  time?: StageTimer;
}

export interface RollupContext extends RollupSettings {
  content: ContentStore;
  memoriesById: ReadonlyMap<string, Memory>;
  /** Summaries by source id (`daily/2026-02-13`, `longterm`). */
  summariesById: ReadonlyMap<string, Summary>;
  /** Summaries of sampled (very busy) periods made by earlier builds, used again for the same sample; none: always made. */
  kept?: KeptRollups;
}

export type { RollupResult } from './rollup-result.js';

export async function runRollup(job: RollupJob, ctx: RollupContext): Promise<RollupResult> {
  const sources = rollupSourcesOf(job, ctx);
  const make = () => rollupSources(job, sources, ctx);
  // A sample of a very busy period: the summary an earlier build made from the same sample is used again (rollup-kept.ts).
  if (!ctx.kept || sources.length === job.sources.length) return make();
  const { summarizer, tokenizer, retries } = ctx;
  return keptOrMade(job, sources, { summarizer, tokenizer, budget: budgetOf(job, ctx), retries }, ctx.kept, make);
}

/** The sources of a job, with their text, as the summarizer sees them (a sample above `MAX_SUMMARIZED_SOURCES`). */
export function rollupSourcesOf(job: RollupJob, ctx: RollupContext): SummarySource[] {
  return summarizedRefs(job.sources, (id) => ctx.memoriesById.get(id)?.importance).map((ref) => toSummarySource(ref.id, ctx));
}

/** Keeps a summary the build threads made from a sample (`runRollup` keeps its own), so the next build can use it again. */
export function keepSampled(result: RollupResult, ctx: RollupContext): void {
  const { job } = result;
  if (!ctx.kept || job.sources.length <= MAX_SUMMARIZED_SOURCES) return;
  const { summarizer, tokenizer, retries } = ctx;
  keepMade(result, rollupSourcesOf(job, ctx), { summarizer, tokenizer, budget: budgetOf(job, ctx), retries }, ctx.kept);
}

/** `runRollup` on sources already read: pure apart from the summarizer, so it also runs on worker threads (rollup-pool.ts). */
export async function rollupSources(job: RollupJob, sources: SummarySource[], ctx: RollupSettings): Promise<RollupResult> {
  const budget = budgetOf(job, ctx);
  const title = titleOf(job);
  const time: StageTimer = ctx.time ?? ((_stage, fn) => fn());
  const measure = answerMeasure(budget, ctx.tokenizer, time);
  // Retention check (src/retention): the must-keep items of the sources, looked for in every answer.
  const mustKeep = time('summarize.retention', () => collectMustKeep(sources));
  const merged = mergedIfItFits(job, sources, budget, title, measure);
  if (merged !== undefined)
    return finish(
      job,
      merged,
      measure.tokensOf(merged),
      { provider: 'merge', model: 'none', prompt: `${job.tier}@merge` },
      { calls: 0, inputTokens: 0, outputTokens: 0 },
      0,
      false,
      time('summarize.retention', () => retentionOf(mustKeep, merged)),
    );
  const answers = await summarizeWithRetries(
    job,
    title,
    summaryRequest(job, sources, budget, title, ctx.tokenizer),
    ctx,
    measure,
    mustKeep,
    time,
  );
  return keptAnswer(job, answers, budget, ctx, measure, mustKeep, time);
}

function budgetOf(job: RollupJob, ctx: Pick<RollupSettings, 'budgets'>): TierBudget {
  const budget = ctx.budgets[job.tier];
  if (!budget) throw new Error(`no budget for tier \`${job.tier}\` in the rollup context`);
  return budget;
}

/** Token counts of the answers (the one kept is counted again to check it, flag it and record its size: counted once) and whether one fits. */
interface AnswerMeasure {
  tokensOf: (body: string) => number;
  fits: (body: string) => boolean;
}

function answerMeasure(budget: TierBudget, tokenizer: TokenizerName, time: StageTimer): AnswerMeasure {
  const tokenCounts = new Map<string, number>();
  const tokensOf = (body: string): number => {
    let tokens = tokenCounts.get(body);
    if (tokens === undefined) tokenCounts.set(body, (tokens = time('summarize.tokens', () => countTokens(body, tokenizer))));
    return tokens;
  };
  return { tokensOf, fits: (body) => tokensOf(body) <= budget.target_tokens && countBytes(body) <= budget.max_bytes };
}

/** The sources merged as they are, when that fits the budget: no summarizer call. */
function mergedIfItFits(
  job: RollupJob,
  sources: readonly SummarySource[],
  budget: TierBudget,
  title: string,
  measure: AnswerMeasure,
): string | undefined {
  // Merging is only worth trying when the sources could fit: their bytes are a lower bound of the merge's.
  const sourceBytes = sources.reduce((sum, source) => sum + countBytes(source.body), 0);
  const merged = sourceBytes <= budget.max_bytes ? compose(title, mergeSources(job.tier, sources)) : undefined;
  return merged !== undefined && measure.fits(merged) ? merged : undefined;
}

/** What the summarizer's attempts came to: the last answer, and the best one that fits (if any). */
interface Answers {
  body: string;
  truncated: boolean;
  /** The answer that fits and lost the fewest must-keep items (by priority); the first one on a tie. */
  best: { body: string; missing: MustKeepItem[] } | undefined;
  attempts: number;
  usage: SummaryUsage;
  notes: Set<string>;
}

/** The summarizer's first answer, then tighter retries (over budget, cut off) and retries for lost must-keep items. */
async function summarizeWithRetries(
  job: RollupJob,
  /** `titleOf(job)`, worked out once per rollup. */
  title: string,
  request: SummaryRequest,
  ctx: RollupSettings,
  measure: AnswerMeasure,
  mustKeep: readonly MustKeepItem[],
  time: StageTimer,
): Promise<Answers> {
  const answers: Answers = {
    body: '',
    truncated: false,
    best: undefined,
    attempts: 0,
    usage: { calls: 0, inputTokens: 0, outputTokens: 0, retries: 0 },
    notes: new Set(),
  };
  let previousTokens: number | undefined;
  let missing: MustKeepItem[] = [];
  for (let attempt = 0; attempt <= ctx.retries; attempt++) {
    answers.attempts++;
    let output;
    try {
      // The extractive summarizer does its work before its promise returns: the time of this call is the selection's.
      output = await time('summarize.select', () =>
        ctx.summarizer.summarize({
          ...request,
          attempt,
          missing: missing.slice(0, MAX_NAMED_MISSING).map((item) => item.text),
          ...(previousTokens !== undefined ? { previousTokens } : {}),
        }),
      );
    } catch (error) {
      // A fault the summarizer gave up on: nothing is written, the previous version (if any) stays.
      if (error instanceof SummarizerError)
        throw new RollupError(job, error.kind, error.message, addUsage(answers.usage, error.usage), answers.attempts);
      throw error;
    }
    addUsage(answers.usage, output.usage);
    for (const note of output.notes ?? []) answers.notes.add(note);
    const body = compose(title, output.body);
    answers.body = body;
    // An answer cut off by max_tokens is incomplete even when it fits: retry tighter.
    answers.truncated = output.finish === 'length';
    const answer = output.body;
    const lost = answers.truncated ? [] : time('summarize.retention', () => checkRetention(mustKeep, answer).missing);
    const usable = !answers.truncated && measure.fits(body);
    if (usable && (!answers.best || compareMissing(lost, answers.best.missing) < 0)) answers.best = { body, missing: lost };
    if (usable && !worthRetrying(lost, output.usage)) break;
    missing = lost;
    previousTokens = usable
      ? undefined
      : output.usage.outputTokens > 0
        ? output.usage.outputTokens
        : countTokens(output.body, ctx.tokenizer);
  }
  return answers;
}

/** The answer kept (the best that fits, else the last), checked: all cut off, or over budget with a previous version, throws. */
function keptAnswer(
  job: RollupJob,
  answers: Answers,
  budget: TierBudget,
  ctx: RollupSettings,
  measure: AnswerMeasure,
  mustKeep: readonly MustKeepItem[],
  time: StageTimer,
): RollupResult {
  const { best, attempts, usage, notes } = answers;
  // A retry for lost items may come back worse (or cut off): the best answer is the one kept.
  const body = best ? best.body : answers.body;
  if (!best && answers.truncated) {
    throw new RollupError(
      job,
      'truncated',
      `every answer was cut off by max_tokens (a runaway output) after ${attempts} attempt${attempts > 1 ? 's' : ''}`,
      usage,
      attempts,
    );
  }
  if (!measure.fits(body) && job.existing) {
    // Keep the previous version rather than replace it with one the package could not use.
    throw new RollupError(
      job,
      'over-budget',
      `still ${measure.tokensOf(body)} tokens / ${countBytes(body)} bytes after ${attempts} attempts ` +
        `(budget ${budget.target_tokens} tokens / ${budget.max_bytes} bytes); the previous version is kept`,
      usage,
      attempts,
    );
  }
  const generator = { provider: ctx.summarizer.provider, model: ctx.summarizer.model, prompt: ctx.summarizer.promptId(job.tier) };
  const result = finish(
    job,
    body,
    measure.tokensOf(body),
    generator,
    usage,
    attempts,
    !measure.fits(body),
    best ? retentionFields(mustKeep.length, best.missing) : time('summarize.retention', () => retentionOf(mustKeep, body)),
  );
  return notes.size > 0 ? { ...result, notes: [...notes] } : result;
}

/**
 * Dry run: whether `job` would be a merge (no call), else what its one
 * summarizer call would send (`estimateInputTokens`) and at most get back
 * (the tier's budget). Retries are not included.
 */
export function estimateRollup(job: RollupJob, ctx: RollupContext): { merge: boolean; inputTokens: number; outputTokens: number } {
  const sources = rollupSourcesOf(job, ctx);
  const budget = ctx.budgets[job.tier];
  if (!budget) throw new Error(`no budget for tier \`${job.tier}\` in the rollup context`);
  const title = titleOf(job);
  const sourceBytes = sources.reduce((sum, source) => sum + countBytes(source.body), 0);
  const merged = sourceBytes <= budget.max_bytes ? compose(title, mergeSources(job.tier, sources)) : undefined;
  if (merged !== undefined && countTokens(merged, ctx.tokenizer) <= budget.target_tokens && countBytes(merged) <= budget.max_bytes) {
    return { merge: true, inputTokens: 0, outputTokens: countTokens(merged, ctx.tokenizer) };
  }
  const request = summaryRequest(job, sources, budget, title, ctx.tokenizer);
  return { merge: false, inputTokens: ctx.summarizer.estimateInputTokens?.(request) ?? 0, outputTokens: budget.target_tokens };
}

/** A first try's request for `job`: its sources and the tier's budget less what the summary's heading takes. */
function summaryRequest(
  job: RollupJob,
  sources: SummarySource[],
  budget: TierBudget,
  title: string,
  tokenizer: TokenizerName,
): SummaryRequest {
  const heading = `${title}\n\n`;
  const { tier, stream, period, start, end } = job;
  return {
    tier,
    stream,
    period,
    start,
    end,
    sources,
    budget: { tokens: budget.target_tokens - countTokens(heading, tokenizer), bytes: budget.max_bytes - countBytes(heading) },
    attempt: 0,
    missing: [],
  };
}

/**
 * A rollup that produced nothing usable (the summarizer failed, every answer
 * was cut off, or an over-budget answer would replace a good previous
 * version). Nothing is written for it; the build reports it and goes on.
 */
export class RollupError extends MemvaultError {
  constructor(
    readonly job: RollupJob,
    /** A fault kind (`timeout`, `rate-limit`, `server`, `empty`, `auth`…), `truncated` or `over-budget`. */
    readonly kind: string,
    message: string,
    readonly usage: SummaryUsage,
    /** Summarizer calls made for it (budget attempts). */
    readonly attempts: number,
  ) {
    super('build/rollup-failed', message);
    this.name = 'RollupError';
  }
}

function addUsage(total: SummaryUsage, more: SummaryUsage): SummaryUsage {
  total.calls += more.calls;
  total.inputTokens += more.inputTokens;
  total.outputTokens += more.outputTokens;
  total.retries = (total.retries ?? 0) + (more.retries ?? 0);
  return total;
}

/**
 * Whether an answer that fits is worth another attempt for the items it lost:
 * always when it lost a pinned, critical or decision line, an identifier or an
 * issue ref; for anything else (a date, a number, a name) only when the
 * attempt is free (no model call, as with the extractive summarizer). A lost
 * name never costs a call; what stays lost is listed as dropped.
 */
function worthRetrying(lost: readonly MustKeepItem[], usage: SummaryUsage): boolean {
  if (
    lost.some(
      (item) =>
        item.kind === 'pinned' || item.kind === 'critical' || item.kind === 'decision' || item.kind === 'code' || item.kind === 'issue',
    )
  )
    return true;
  return usage.calls === 0 && lost.length > 0;
}

function retentionOf(mustKeep: readonly MustKeepItem[], body: string): RetentionFields {
  return retentionFields(mustKeep.length, checkRetention(mustKeep, body).missing);
}
