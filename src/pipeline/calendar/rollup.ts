import type { TierBudget } from '../../config/schema.js';
import { SummarizerError } from '../../llm/faults.js';
import type { Summarizer, SummaryRequest, SummarySource, SummaryUsage } from '../../llm/types.js';
import {
  checkRetention,
  collectMustKeep,
  compareMissing,
  droppedFields,
  MAX_NAMED_MISSING,
  type MustKeepItem,
} from '../../retention/index.js';
import { sha256 } from '../../util/hash.js';
import { countBytes, countTokens, type TokenizerName } from '../../util/tokens.js';
import type { ContentStore } from '../../load/load.js';
import type { Memory, Summary, SummaryMeta, Tier } from '../../vault/model.js';
import { boundSources, writeSummaryFile } from '../../vault/summary-file.js';
import type { RollupJob } from './plan.js';
import { MemvaultError } from '../../util/errors.js';
import type { StageTimer } from '../build-timings.js';
import { compose, mergeSources, summarizedRefs, titleOf, toSummarySource } from './rollup-sources.js';

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
}

export interface RollupResult {
  job: RollupJob;
  /** The whole file: frontmatter and body. */
  text: string;
  body: string;
  meta: SummaryMeta;
  usage: SummaryUsage;
  /** Summarizer calls made (0 for a merge). */
  attempts: number;
  flagged: boolean;
  /** What was cleaned out of the model's answers (`opening meta-commentary`, `frontmatter`, …). */
  notes?: string[];
}

export async function runRollup(job: RollupJob, ctx: RollupContext): Promise<RollupResult> {
  return rollupSources(job, rollupSourcesOf(job, ctx), ctx);
}

/** The sources of a job, with their text, as the summarizer sees them (a sample above `MAX_SUMMARIZED_SOURCES`). */
export function rollupSourcesOf(job: RollupJob, ctx: RollupContext): SummarySource[] {
  return summarizedRefs(job.sources, (id) => ctx.memoriesById.get(id)?.importance).map((ref) => toSummarySource(ref.id, ctx));
}

/** `runRollup` on sources already read: pure apart from the summarizer, so it also runs on worker threads (rollup-pool.ts). */
export async function rollupSources(job: RollupJob, sources: SummarySource[], ctx: RollupSettings): Promise<RollupResult> {
  const budget = ctx.budgets[job.tier];
  if (!budget) throw new Error(`no budget for tier \`${job.tier}\` in the rollup context`);
  const title = titleOf(job);
  const time: StageTimer = ctx.time ?? ((_stage, fn) => fn());
  // The answer kept is counted again to check it, flag it and record its size: counted once.
  const tokenCounts = new Map<string, number>();
  const tokensOf = (body: string): number => {
    let tokens = tokenCounts.get(body);
    if (tokens === undefined) tokenCounts.set(body, (tokens = time('summarize.tokens', () => countTokens(body, ctx.tokenizer))));
    return tokens;
  };
  const fits = (body: string): boolean => tokensOf(body) <= budget.target_tokens && countBytes(body) <= budget.max_bytes;
  // Retention check (src/retention): the must-keep items of the sources, looked for in every answer.
  const mustKeep = time('summarize.retention', () => collectMustKeep(sources));

  // Merging is only worth trying when the sources could fit: their bytes are a lower bound of the merge's.
  const sourceBytes = sources.reduce((sum, source) => sum + countBytes(source.body), 0);
  const merged = sourceBytes <= budget.max_bytes ? compose(title, mergeSources(job.tier, sources)) : undefined;
  if (merged !== undefined && fits(merged))
    return finish(
      job,
      merged,
      tokensOf(merged),
      { provider: 'merge', model: 'none', prompt: `${job.tier}@merge` },
      { calls: 0, inputTokens: 0, outputTokens: 0 },
      0,
      false,
      time('summarize.retention', () => retentionOf(mustKeep, merged)),
    );

  const request = summaryRequest(job, sources, budget, title, ctx.tokenizer);
  const usage: SummaryUsage = { calls: 0, inputTokens: 0, outputTokens: 0, retries: 0 };
  const notes = new Set<string>();
  let body = '';
  let attempts = 0;
  let truncated = false;
  let previousTokens: number | undefined;
  let missing: MustKeepItem[] = [];
  // The answer that fits and lost the fewest must-keep items (by priority); the first one on a tie.
  let best: { body: string; missing: MustKeepItem[] } | undefined;
  for (let attempt = 0; attempt <= ctx.retries; attempt++) {
    attempts++;
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
      if (error instanceof SummarizerError) throw new RollupError(job, error.kind, error.message, addUsage(usage, error.usage), attempts);
      throw error;
    }
    addUsage(usage, output.usage);
    for (const note of output.notes ?? []) notes.add(note);
    body = compose(title, output.body);
    // An answer cut off by max_tokens is incomplete even when it fits: retry tighter.
    truncated = output.finish === 'length';
    const answer = output.body;
    const lost = truncated ? [] : time('summarize.retention', () => checkRetention(mustKeep, answer).missing);
    const usable = !truncated && fits(body);
    if (usable && (!best || compareMissing(lost, best.missing) < 0)) best = { body, missing: lost };
    if (usable && !worthRetrying(lost, output.usage)) break;
    missing = lost;
    previousTokens = usable
      ? undefined
      : output.usage.outputTokens > 0
        ? output.usage.outputTokens
        : countTokens(output.body, ctx.tokenizer);
  }
  if (best) {
    // A retry for lost items may come back worse (or cut off): the best answer is the one kept.
    body = best.body;
    truncated = false;
  }
  if (truncated) {
    throw new RollupError(
      job,
      'truncated',
      `every answer was cut off by max_tokens (a runaway output) after ${attempts} attempt${attempts > 1 ? 's' : ''}`,
      usage,
      attempts,
    );
  }
  if (!fits(body) && job.existing) {
    // Keep the previous version rather than replace it with one the package could not use.
    throw new RollupError(
      job,
      'over-budget',
      `still ${tokensOf(body)} tokens / ${countBytes(body)} bytes after ${attempts} attempts ` +
        `(budget ${budget.target_tokens} tokens / ${budget.max_bytes} bytes); the previous version is kept`,
      usage,
      attempts,
    );
  }
  const generator = { provider: ctx.summarizer.provider, model: ctx.summarizer.model, prompt: ctx.summarizer.promptId(job.tier) };
  const result = finish(
    job,
    body,
    tokensOf(body),
    generator,
    usage,
    attempts,
    !fits(body),
    best ? { items: mustKeep.length, dropped: best.missing } : time('summarize.retention', () => retentionOf(mustKeep, body)),
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

function retentionOf(mustKeep: readonly MustKeepItem[], body: string): { items: number; dropped: MustKeepItem[] } {
  return { items: mustKeep.length, dropped: checkRetention(mustKeep, body).missing };
}

function finish(
  job: RollupJob,
  body: string,
  tokens: number,
  generator: SummaryMeta['generator'],
  usage: SummaryUsage,
  attempts: number,
  flagged: boolean,
  retention?: { items: number; dropped: readonly MustKeepItem[] },
): RollupResult {
  // Bounded as it is written (a very busy day holds its sources' count and hash), so the build's own copy equals a re-read.
  const meta: SummaryMeta = boundSources({
    memvault: 'summary',
    tier: job.tier,
    stream: job.stream,
    period: job.period,
    start: job.start,
    end: job.end,
    sources: job.sources,
    memories: job.memories,
    tokens,
    bytes: countBytes(body),
    generator,
    input_hash: job.inputHash,
    output_hash: sha256(body),
    ...(flagged ? { review: ['over-budget' as const] } : {}),
    ...(retention ? { must_keep: retention.items } : {}),
    ...(retention ? droppedFields(retention.dropped) : {}),
    ...(job.folded ? { folded: job.folded } : {}),
  });
  return { job, text: writeSummaryFile(meta, body), body, meta, usage, attempts, flagged };
}
