import type { TierBudget } from '../config/schema.js';
import { SummarizerError } from '../llm/faults.js';
import type { Summarizer, SummarySource, SummaryUsage } from '../llm/types.js';
import {
  checkRetention,
  collectMustKeep,
  compareMissing,
  droppedText,
  MAX_NAMED_MISSING,
  resolveRelativeDates,
  type MustKeepItem,
} from '../retention/index.js';
import { weekdayName } from '../time/periods.js';
import { sha256 } from '../util/hash.js';
import { countBytes, countTokens, type TokenizerName } from '../util/tokens.js';
import type { ContentStore } from '../vault/load.js';
import type { ParsedContent } from '../vault/cache.js';
import { headingSpans, parseMarkdown, type HeadingSpan } from '../vault/markdown.js';
import type { Memory, Summary, SummaryMeta, Tier } from '../vault/model.js';
import { writeSummaryFile } from '../vault/summary-file.js';
import type { RollupJob } from './plan.js';
import { MemvaultError } from '../util/errors.js';

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

/** The sources of a job, with their text, as the summarizer sees them. */
export function rollupSourcesOf(job: RollupJob, ctx: RollupContext): SummarySource[] {
  return job.sources.map((ref) => toSummarySource(ref.id, ctx));
}

/** `runRollup` on sources already read: pure apart from the summarizer, so it also runs on worker threads (rollup-pool.ts). */
export async function rollupSources(job: RollupJob, sources: SummarySource[], ctx: RollupSettings): Promise<RollupResult> {
  const budget = ctx.budgets[job.tier];
  if (!budget) throw new Error(`no budget for tier \`${job.tier}\` in the rollup context`);
  const title = titleOf(job);
  // The answer kept is counted again to check it, flag it and record its size: counted once.
  const tokenCounts = new Map<string, number>();
  const tokensOf = (body: string): number => {
    let tokens = tokenCounts.get(body);
    if (tokens === undefined) tokenCounts.set(body, (tokens = countTokens(body, ctx.tokenizer)));
    return tokens;
  };
  const fits = (body: string): boolean => tokensOf(body) <= budget.target_tokens && countBytes(body) <= budget.max_bytes;
  // Retention check (src/retention): the must-keep items of the sources, looked for in every answer.
  const mustKeep = collectMustKeep(sources);

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
      retentionOf(mustKeep, merged),
    );

  const headingCost = { tokens: countTokens(`${title}\n\n`, ctx.tokenizer), bytes: countBytes(`${title}\n\n`) };
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
      output = await ctx.summarizer.summarize({
        tier: job.tier,
        stream: job.stream,
        period: job.period,
        start: job.start,
        end: job.end,
        sources,
        budget: { tokens: budget.target_tokens - headingCost.tokens, bytes: budget.max_bytes - headingCost.bytes },
        attempt,
        missing: missing.slice(0, MAX_NAMED_MISSING).map((item) => item.text),
        ...(previousTokens !== undefined ? { previousTokens } : {}),
      });
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
    const lost = truncated ? [] : checkRetention(mustKeep, output.body).missing;
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
      `still ${tokensOf(body)} tokens / ${countBytes(body)} bytes after ${attempts} attempts (budget ${budget.target_tokens} tokens / ${budget.max_bytes} bytes); the previous version is kept`,
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
    best ? { items: mustKeep.length, dropped: best.missing } : retentionOf(mustKeep, body),
  );
  return notes.size > 0 ? { ...result, notes: [...notes] } : result;
}

/**
 * Dry run: whether `job` would be a merge (no call), else what its one
 * summarizer call would send (`estimateInputTokens`) and at most get back
 * (the tier's budget). Retries are not included.
 */
export function estimateRollup(job: RollupJob, ctx: RollupContext): { merge: boolean; inputTokens: number; outputTokens: number } {
  const sources = job.sources.map((ref) => toSummarySource(ref.id, ctx));
  const budget = ctx.budgets[job.tier];
  if (!budget) throw new Error(`no budget for tier \`${job.tier}\` in the rollup context`);
  const title = titleOf(job);
  const sourceBytes = sources.reduce((sum, source) => sum + countBytes(source.body), 0);
  const merged = sourceBytes <= budget.max_bytes ? compose(title, mergeSources(job.tier, sources)) : undefined;
  if (merged !== undefined && countTokens(merged, ctx.tokenizer) <= budget.target_tokens && countBytes(merged) <= budget.max_bytes) {
    return { merge: true, inputTokens: 0, outputTokens: countTokens(merged, ctx.tokenizer) };
  }
  const headingCost = { tokens: countTokens(`${title}\n\n`, ctx.tokenizer), bytes: countBytes(`${title}\n\n`) };
  const request = {
    tier: job.tier,
    stream: job.stream,
    period: job.period,
    start: job.start,
    end: job.end,
    sources,
    budget: { tokens: budget.target_tokens - headingCost.tokens, bytes: budget.max_bytes - headingCost.bytes },
    attempt: 0,
    missing: [],
  };
  return { merge: false, inputTokens: ctx.summarizer.estimateInputTokens?.(request) ?? 0, outputTokens: budget.target_tokens };
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
  const meta: SummaryMeta = {
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
    ...(retention && retention.dropped.length > 0 ? { dropped: [...new Set(retention.dropped.map(droppedText))] } : {}),
    ...(job.folded ? { folded: job.folded } : {}),
  };
  return { job, text: writeSummaryFile(meta, body), body, meta, usage, attempts, flagged };
}

function compose(title: string, content: string): string {
  return `${title}\n\n${content.trim()}\n`;
}

/** The heading of a generated summary. */
export function titleOf(job: Pick<RollupJob, 'tier' | 'stream' | 'period' | 'start' | 'end'>): string {
  switch (job.tier) {
    case 'daily':
      return `# ${job.stream}: ${job.period} (${weekdayName(job.period)})`;
    case 'weekly':
      return `# ${job.stream}: week ${job.period} (${job.start} to ${job.end})`;
    case 'monthly':
      return `# ${job.stream}: month ${job.period} (${job.start} to ${job.end})`;
    case 'longterm':
      return `# ${job.stream}: long-term memory (${job.start} to ${job.end})`;
    case 'waterfall-longterm':
      return `# ${job.stream}: older memories, ${job.period} (${job.start} to ${job.end})`;
    case 'waterfall-recent':
      return `# ${job.stream}: recent past, ${job.period} (${job.start} to ${job.end})`;
  }
}

function toSummarySource(id: string, ctx: RollupContext): SummarySource {
  const memory = ctx.memoriesById.get(id);
  if (memory) {
    const parsed = ctx.content.memory(memory);
    const time = /T\d{2}:\d{2}/.test(memory.date)
      ? `${String(Math.floor(memory.minute / 60)).padStart(2, '0')}:${String(memory.minute % 60).padStart(2, '0')}`
      : undefined;
    // "yesterday" in a memory means the day before the memory: say which day, for every tier above it.
    const resolve = (text: string): string => resolveRelativeDates(text, memory.day);
    return {
      id,
      label: memory.title ?? parsed.sentences[0]?.text.slice(0, 80) ?? memory.id,
      day: memory.day,
      ...(time ? { time } : {}),
      kind: memory.kind,
      importance: memory.importance,
      body: resolve(parsed.body),
      sentences: parsed.sentences.map((sentence) => ({ ...sentence, text: resolve(sentence.text) })),
    };
  }
  const summary = ctx.summariesById.get(id);
  if (!summary) throw new Error(`source \`${id}\` of a planned summary is not loaded`);
  const parsed = ctx.content.summary(summary);
  return {
    id,
    label: summary.meta.tier === 'longterm' ? 'long-term memory' : summary.meta.period,
    day: summary.meta.start,
    kind: 'summary',
    importance: 'normal',
    body: bodyWithoutTitle(parsed.body),
    sentences: parsed.sentences,
  };
}

/** Concatenates sources under their own headings: lossless, used when it fits the budget. */
export function mergeSources(tier: Tier, sources: readonly SummarySource[]): string {
  return sources
    .map((source) => {
      if (tier === 'daily' && source.importance === 'pinned') {
        // The package always carries pinned memories in full: here a mention is enough.
        const lead = source.sentences.find((sentence) => sentence.role !== 'heading')?.text ?? '';
        return `### ${source.time ? `${source.time} ` : ''}${source.label} (pinned)\n\n${lead}`.trim();
      }
      const heading = tier === 'daily' ? `### ${source.time ? `${source.time} ` : ''}${source.label}` : `### ${source.label}`;
      return `${heading}\n\n${demoteHeadings(source.body, 3)}`.trim();
    })
    .join('\n\n');
}

/** Bodies already demoted (`level` + body → result): the package renders the same summaries on every rebuild, and watch mode rebuilds often. */
const demoted = new Map<string, string>();
const DEMOTED_MAX = 4096;

/**
 * Pushes every heading of a markdown body below `level`, so merged sources
 * nest under their own heading. `parsedFrom`, the parsed content `body` was
 * cut from (its end), gives the headings' positions; otherwise the body is
 * parsed for them.
 */
export function demoteHeadings(body: string, level: number, parsedFrom?: ParsedContent): string {
  if (!/^#{1,6}\s|^ {0,3}(?:=+|-+)\s*$/m.test(body)) return body.trim();
  const spans = parsedFrom ? spansWithin(parsedFrom, body) : undefined;
  if (spans) return applyDemotion(body, spans, level);
  const key = `${level}\n${body}`;
  const known = demoted.get(key);
  if (known !== undefined) return known;
  if (demoted.size >= DEMOTED_MAX) demoted.clear();
  const result = applyDemotion(body, headingSpans(parseMarkdown(body)), level);
  demoted.set(key, result);
  return result;
}

/** The heading spans of `parsed` moved onto `body`, when `body` is the end of `parsed.body` (a title cut off, say). */
function spansWithin(parsed: ParsedContent, body: string): HeadingSpan[] | undefined {
  const cut = parsed.body.length - body.length;
  if (!parsed.headings || cut < 0 || !parsed.body.endsWith(body)) return undefined;
  const shift = (offset: number): number => (offset < 0 ? offset : offset - cut);
  return parsed.headings
    .filter((span) => span[0] >= cut)
    .map(([start, end, depth, textStart, textEnd]) => [shift(start), shift(end), depth, shift(textStart), shift(textEnd)]);
}

function applyDemotion(body: string, headings: readonly HeadingSpan[], level: number): string {
  // Edit the source at the headings' positions instead of re-serialising the tree:
  // the rest of the markdown stays byte for byte as written.
  if (headings.length === 0) return body.trim();
  const shallowest = Math.min(...headings.map((span) => span[2]));
  let out = '';
  let cursor = 0;
  for (const [start, end, depth, textStart, textEnd] of headings) {
    const text = textStart >= 0 && textEnd >= 0 ? body.slice(textStart, textEnd).replace(/\s*\n\s*/g, ' ') : '';
    out += `${body.slice(cursor, start)}${'#'.repeat(Math.min(6, depth - shallowest + level + 1))}${text ? ` ${text}` : ''}`;
    cursor = end;
  }
  return `${out}${body.slice(cursor)}`.trim();
}

function bodyWithoutTitle(body: string): string {
  return body.replace(/^# [^\n]*\n+/, '');
}
