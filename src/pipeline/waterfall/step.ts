import { hashValue, sha256 } from '../../util/hash.js';
import type { Memory, SourceRef, StreamState, Summary, SummaryMeta, WaterfallTier } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import { writeSummaryFile } from '../../vault/summary-file.js';
import { historyIdOf } from './integrity.js';
import type { RollupJob } from '../calendar/plan.js';
import { RollupError, runRollup, type RollupContext, type RollupResult } from '../calendar/rollup.js';
import type { CompactionStep } from './plan.js';
import type { CompactionReport, WaterfallRunContext } from './report.js';
import { waterfallSummaries } from './status.js';
import type { WriteOp, WriteResult } from '../write.js';
import { diskWriter, type Writer } from '../writer.js';

/** What part of a compaction did: files written, history copies, the model's usage and what is worth telling. */
export interface StepPart {
  written: string[];
  historyCopies: string[];
  usage: { calls: number; inputTokens: number; outputTokens: number; retries: number };
  notes: string[];
}

/**
 * What one compaction did: its parts in order (the long-term fold, the recent
 * summary) and, when it ran to the end, its report; when the summarizer
 * failed, the error (the parts before it were written and stay).
 */
export interface CompactionOutcome {
  parts: StepPart[];
  report?: CompactionReport;
  error?: RollupError;
}

/**
 * One compaction of the waterfall, in the write order that makes it safe to
 * interrupt (see `build.ts`): long-term first, then recent, then recent's
 * copy in `waterfall/history/`. A `RollupError` from the summarizer comes back
 * as the outcome's `error`; what was written before it is a consistent state.
 */
export async function compact(
  stream: StreamState,
  step: CompactionStep,
  taken: Set<string>,
  run: { keepRecentEdit: boolean },
  ctx: WaterfallRunContext,
): Promise<CompactionOutcome> {
  const parts: StepPart[] = [];
  try {
    const previous = waterfallSummaries(stream);
    // 1. longterm ← summarize(old longterm + old recent)
    const longterm =
      step.fold && previous.recent ? await foldIntoLongterm(stream, step, step.fold, previous.recent, previous.longterm, ctx) : null;
    if (longterm) parts.push(longterm.part);
    // 2. recent ← summarize(memories outside the immediate window not yet in long-term)
    const recent = await summarizeRecent(stream, step, previous.recent, taken, run, ctx);
    parts.push(recent.part);
    const report = {
      compaction: step.compaction,
      count: step.count,
      reason: step.reason,
      longterm: longterm?.report ?? null,
      recent: recent.report,
    };
    return { parts, report };
  } catch (error) {
    if (!(error instanceof RollupError)) throw error;
    return { parts, error };
  }
}

/** What the summarizer, tokenizer and budgets of both waterfall jobs share. */
function rollupBase(ctx: WaterfallRunContext): Omit<RollupContext, 'memoriesById' | 'summariesById'> {
  return {
    summarizer: ctx.summarizer,
    tokenizer: ctx.config.tokenizer,
    budgets: { 'waterfall-recent': ctx.config.waterfall.recent, 'waterfall-longterm': ctx.config.waterfall.longterm },
    retries: ctx.config.llm.retries,
    content: ctx.loaded.content,
  };
}

/**
 * Folds the previous recent summary (and the previous long-term one) into a
 * new long-term summary and writes it. The job reads summaries only, so a
 * memory id can never shadow a summary's. A hand-edited recent summary is
 * folded as edited; the chain of folded copies still points at the copy of
 * what was generated.
 */
async function foldIntoLongterm(
  stream: StreamState,
  step: CompactionStep,
  fold: NonNullable<CompactionStep['fold']>,
  previousRecent: Summary,
  previousLongterm: Summary | undefined,
  ctx: WaterfallRunContext,
): Promise<{ report: NonNullable<CompactionReport['longterm']>; part: StepPart }> {
  const name = stream.name;
  const summariesById = new Map<string, Summary>();
  const sources: SourceRef[] = [];
  if (previousLongterm) {
    sources.push({ id: 'waterfall/longterm', sha256: previousLongterm.sha256 });
    summariesById.set('waterfall/longterm', previousLongterm);
  }
  const edited = previousRecent.bodyHash !== previousRecent.meta.output_hash;
  const copyPath = previousRecent.meta.waterfall?.history;
  const copyId = copyPath ? historyIdOf(name, copyPath) : 'waterfall/recent';
  const foldedId = edited ? 'waterfall/recent' : copyId;
  sources.push({ id: foldedId, sha256: previousRecent.sha256 });
  summariesById.set(foldedId, previousRecent);
  const copyText = edited && copyPath ? writerOf(ctx).read(copyPath) : undefined;
  const copySha = copyText !== undefined ? sha256(copyText) : previousRecent.sha256;
  const job = waterfallJob(
    'waterfall-longterm',
    name,
    `memories 1-${fold.memories}`,
    fold.coversFrom,
    fold.coversThrough,
    sources,
    fold.memories,
    ctx,
    step,
  );
  job.folded = [...(previousLongterm?.meta.folded ?? []), { id: copyId, sha256: copySha }];
  const result = await runRollup(job, { ...rollupBase(ctx), memoriesById: new Map(), summariesById });
  const meta: SummaryMeta = {
    ...result.meta,
    waterfall: {
      compaction: step.compaction,
      compacted_at_count: step.count,
      covers_from: fold.coversFrom.id,
      covers_through: fold.coversThrough.id,
    },
  };
  const text = writeSummaryFile(meta, result.body);
  const history = { stream: name, tier: 'waterfall-longterm' as const, period: 'longterm' };
  const written = write(stream, [{ path: job.path, text, history }], meta, result.body, ctx);
  return {
    report: { path: job.path, memories: fold.memories, tokens: meta.tokens, generator: generatorName(meta), flagged: result.flagged },
    part: { ...written, ...usageOf(result) },
  };
}

/**
 * Summarizes the step's memories into a new recent summary, writes it and its
 * copy in `waterfall/history/`. The job reads memories only. The recent
 * summary's history is that copy; only a hand edit, which the copy lacks,
 * goes to `history/` as well.
 */
async function summarizeRecent(
  stream: StreamState,
  step: CompactionStep,
  previousRecent: Summary | undefined,
  taken: Set<string>,
  run: { keepRecentEdit: boolean },
  ctx: WaterfallRunContext,
): Promise<{ report: CompactionReport['recent']; part: StepPart }> {
  const name = stream.name;
  const first = step.recent[0]!;
  const last = step.recent[step.recent.length - 1]!;
  const [from, through] = step.positions;
  const job = waterfallJob(
    'waterfall-recent',
    name,
    from === through ? `memory ${from}` : `memories ${from}-${through}`,
    first,
    last,
    step.recent.map((m) => ({ id: m.id, sha256: m.sha256 })),
    step.recent.length,
    ctx,
    step,
  );
  const memoriesById = new Map(step.recent.map((memory) => [memory.id, memory]));
  const result = await runRollup(job, { ...rollupBase(ctx), memoriesById, summariesById: new Map() });
  const copyPath = freeHistoryName(name, ctx.now, taken);
  taken.add(copyPath);
  const meta: SummaryMeta = {
    ...result.meta,
    waterfall: {
      compaction: step.compaction,
      compacted_at_count: step.count,
      covers_from: first.id,
      covers_through: last.id,
      history: copyPath,
    },
  };
  const text = writeSummaryFile(meta, result.body);
  const keepEdit = run.keepRecentEdit || (previousRecent !== undefined && previousRecent.bodyHash !== previousRecent.meta.output_hash);
  run.keepRecentEdit = false;
  const history = keepEdit ? { history: { stream: name, tier: 'waterfall-recent' as const, period: 'recent' } } : {};
  const written = write(stream, [{ path: job.path, text, ...history }], meta, result.body, ctx);
  const copy = writerOf(ctx).write([{ path: copyPath, text }], ctx.now);
  const report = {
    path: job.path,
    memories: step.recent.length,
    positions: step.positions,
    tokens: meta.tokens,
    generator: generatorName(meta),
    flagged: result.flagged,
    history: copyPath,
  };
  const part = {
    written: [...written.written, ...copy.written],
    historyCopies: [...written.historyCopies, ...copy.written],
    ...usageOf(result),
  };
  return { report, part };
}

function waterfallJob(
  tier: WaterfallTier,
  stream: string,
  period: string,
  from: Memory,
  through: Memory,
  sources: SourceRef[],
  memories: number,
  ctx: WaterfallRunContext,
  step: CompactionStep,
): RollupJob {
  const budget = tier === 'waterfall-recent' ? ctx.config.waterfall.recent : ctx.config.waterfall.longterm;
  const generator = { provider: ctx.summarizer.provider, model: ctx.summarizer.model, prompt: ctx.summarizer.promptId(tier) };
  return {
    tier,
    stream,
    period,
    start: from.day,
    end: through.day,
    path: tier === 'waterfall-recent' ? vaultPaths.waterfallRecent(stream) : vaultPaths.waterfallLongterm(stream),
    sources,
    memories,
    // Same recipe as the calendar tiers: sources + generator + prompt + budget.
    inputHash: hashValue({ tier, period, sources, generator, budget }),
    reason: step.reason === 'forced' ? 'forced' : 'missing',
  };
}

function write(stream: StreamState, ops: readonly WriteOp[], meta: SummaryMeta, body: string, ctx: WaterfallRunContext): WriteResult {
  const writer = writerOf(ctx);
  const written = writer.write(ops, ctx.now);
  const op = ops[0]!;
  const fileSha = sha256(op.text);
  const summary: Summary = { meta, path: op.path, sha256: fileSha, bodyHash: sha256(body) };
  stream.summaries.set(summary.path, summary);
  const parsed = ctx.loaded.content.rememberSummary(fileSha, body);
  // Record it in the parse cache, so the next build does not read it again.
  const stat = writer.stat(op.path)!;
  ctx.loaded.cache.set(op.path, { size: stat.size, mtimeMs: stat.mtimeMs, sha256: fileSha, result: { type: 'summary', summary } }, parsed);
  return written;
}

/** The run's writer: the build's, else the disk (`memvault compact`). */
export function writerOf(ctx: Pick<WaterfallRunContext, 'writer' | 'vaultDir'>): Writer {
  return ctx.writer ?? diskWriter(ctx.vaultDir);
}

/** A rollup's usage and the notes on its answer, as a step part says them. */
function usageOf(result: RollupResult): Pick<StepPart, 'usage' | 'notes'> {
  const { calls, inputTokens, outputTokens } = result.usage;
  return {
    usage: { calls, inputTokens, outputTokens, retries: Math.max(0, result.attempts - 1) },
    notes: result.notes?.length ? [`${result.job.tier}: cleaned from the model's answer: ${result.notes.join(', ')}`] : [],
  };
}

function generatorName(meta: SummaryMeta): string {
  return meta.generator.provider === 'merge' ? 'merge' : `${meta.generator.provider}/${meta.generator.model}`;
}

/** `recent-YYYYMMDD-HHMMSS.md`, or `-2`, `-3`… when a compaction at the same `now` already took it. */
function freeHistoryName(stream: string, now: Date, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const candidate = vaultPaths.waterfallHistory(stream, now, n);
    if (!taken.has(candidate)) return candidate;
  }
}
