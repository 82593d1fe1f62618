import type { Heading } from 'mdast';
import type { TierBudget } from '../config/schema.js';
import type { Summarizer, SummarySource, SummaryUsage } from '../llm/types.js';
import { weekdayName } from '../time/periods.js';
import { sha256 } from '../util/hash.js';
import { countBytes, countTokens, type TokenizerName } from '../util/tokens.js';
import type { ContentStore } from '../vault/load.js';
import { parseMarkdown } from '../vault/markdown.js';
import type { CalendarTier, Memory, Summary, SummaryMeta } from '../vault/model.js';
import { writeSummaryFile } from '../vault/summary-file.js';
import type { RollupJob } from './plan.js';

/**
 * Stage 3 and 4, roll up and check budgets: builds one planned summary from
 * the tier below. Inputs that already fit the budget are merged as they are
 * (no summarizer call); otherwise the summarizer runs, and an answer over
 * budget is retried tighter, then flagged for review.
 */

export interface RollupContext {
  summarizer: Summarizer;
  tokenizer: TokenizerName;
  budgets: Record<CalendarTier, TierBudget>;
  /** Tighter retries after an over-budget answer. */
  retries: number;
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
}

export async function runRollup(job: RollupJob, ctx: RollupContext): Promise<RollupResult> {
  const sources = job.sources.map((ref) => toSummarySource(ref.id, ctx));
  const budget = ctx.budgets[job.tier];
  const title = titleOf(job);
  const fits = (body: string): boolean => countTokens(body, ctx.tokenizer) <= budget.target_tokens && countBytes(body) <= budget.max_bytes;

  // Merging is only worth trying when the sources could fit: their bytes are a lower bound of the merge's.
  const sourceBytes = sources.reduce((sum, source) => sum + countBytes(source.body), 0);
  const merged = sourceBytes <= budget.max_bytes ? compose(title, mergeSources(job.tier, sources)) : undefined;
  if (merged !== undefined && fits(merged)) return finish(job, merged, { provider: 'merge', model: 'none', prompt: `${job.tier}@merge` }, { calls: 0, inputTokens: 0, outputTokens: 0 }, 0, false, ctx);

  const headingCost = { tokens: countTokens(`${title}\n\n`, ctx.tokenizer), bytes: countBytes(`${title}\n\n`) };
  const usage: SummaryUsage = { calls: 0, inputTokens: 0, outputTokens: 0 };
  let body = '';
  let attempts = 0;
  for (let attempt = 0; attempt <= ctx.retries; attempt++) {
    attempts++;
    const output = await ctx.summarizer.summarize({
      tier: job.tier,
      stream: job.stream,
      period: job.period,
      start: job.start,
      end: job.end,
      sources,
      budget: { tokens: budget.target_tokens - headingCost.tokens, bytes: budget.max_bytes - headingCost.bytes },
      attempt,
      missing: [],
    });
    usage.calls += output.usage.calls;
    usage.inputTokens += output.usage.inputTokens;
    usage.outputTokens += output.usage.outputTokens;
    body = compose(title, output.body);
    if (fits(body)) break;
  }
  const generator = { provider: ctx.summarizer.provider, model: ctx.summarizer.model, prompt: ctx.summarizer.promptId(job.tier) };
  return finish(job, body, generator, usage, attempts, !fits(body), ctx);
}

function finish(job: RollupJob, body: string, generator: SummaryMeta['generator'], usage: SummaryUsage, attempts: number, flagged: boolean, ctx: RollupContext): RollupResult {
  const meta: SummaryMeta = {
    memvault: 'summary',
    tier: job.tier,
    stream: job.stream,
    period: job.period,
    start: job.start,
    end: job.end,
    sources: job.sources,
    memories: job.memories,
    tokens: countTokens(body, ctx.tokenizer),
    bytes: countBytes(body),
    generator,
    input_hash: job.inputHash,
    output_hash: sha256(body),
    ...(flagged ? { review: ['over-budget' as const] } : {}),
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
  }
}

function toSummarySource(id: string, ctx: RollupContext): SummarySource {
  const memory = ctx.memoriesById.get(id);
  if (memory) {
    const parsed = ctx.content.memory(memory);
    const time = /T\d{2}:\d{2}/.test(memory.date) ? `${String(Math.floor(memory.minute / 60)).padStart(2, '0')}:${String(memory.minute % 60).padStart(2, '0')}` : undefined;
    return {
      id,
      label: memory.title ?? parsed.sentences[0]?.text.slice(0, 80) ?? memory.id,
      day: memory.day,
      ...(time ? { time } : {}),
      kind: memory.kind,
      importance: memory.importance,
      body: parsed.body,
      sentences: parsed.sentences,
    };
  }
  const summary = ctx.summariesById.get(id);
  if (!summary) throw new Error(`source \`${id}\` of a planned summary is not loaded`);
  const parsed = ctx.content.summary(summary);
  return { id, label: summary.meta.tier === 'longterm' ? 'long-term memory' : summary.meta.period, day: summary.meta.start, kind: 'summary', importance: 'normal', body: bodyWithoutTitle(parsed.body), sentences: parsed.sentences };
}

/** Concatenates sources under their own headings: lossless, used when it fits the budget. */
export function mergeSources(tier: CalendarTier, sources: readonly SummarySource[]): string {
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

/** Pushes every heading of a markdown body below `level`, so merged sources nest under their own heading. */
export function demoteHeadings(body: string, level: number): string {
  if (!/^#{1,6}\s|^ {0,3}(?:=+|-+)\s*$/m.test(body)) return body.trim();
  // Edit the source at the headings' positions instead of re-serialising the tree:
  // the rest of the markdown stays byte for byte as written.
  const headings = parseMarkdown(body).children.filter((node): node is Heading => node.type === 'heading');
  if (headings.length === 0) return body.trim();
  const shallowest = Math.min(...headings.map((node) => node.depth));
  let out = '';
  let cursor = 0;
  for (const heading of headings) {
    const start = heading.position?.start.offset;
    const end = heading.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    const first = heading.children[0]?.position?.start.offset;
    const last = heading.children[heading.children.length - 1]?.position?.end.offset;
    const text = first !== undefined && last !== undefined ? body.slice(first, last).replace(/\s*\n\s*/g, ' ') : '';
    out += `${body.slice(cursor, start)}${'#'.repeat(Math.min(6, heading.depth - shallowest + level + 1))}${text ? ` ${text}` : ''}`;
    cursor = end;
  }
  return `${out}${body.slice(cursor)}`.trim();
}

function bodyWithoutTitle(body: string): string {
  return body.replace(/^# [^\n]*\n+/, '');
}
