import type { Config } from '../../config/schema.js';
import type { StreamState, Summary, WaterfallTier } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import { assignLayers, planWaterfall, waterfallPosition, type CompactionStep, type WaterfallPosition } from './plan.js';
import { assembleContext, contextInputHash } from './context.js';
import { listHistory, waterfallSummaries, windowsOf } from './status.js';
import { compact, type StepPart, writerOf } from './step.js';
import type { CompactionReport, WaterfallReport, WaterfallRunContext } from './report.js';

/**
 * Runs the waterfall of one stream (plan in `waterfall.ts`): each planned
 * compaction folds into `waterfall/longterm.md`, writes `waterfall/recent.md`
 * and its copy in `waterfall/history/`, then `CONTEXT.md` is assembled.
 *
 * Every file goes through `applyWrites` (atomic), in an order that makes a
 * compaction safe to interrupt at any point: the new
 * long-term summary first (the previous one is copied to
 * `history/waterfall-longterm/`), then the recent summary (which names its
 * history copy), then the copy. A build that finds the long-term summary one
 * compaction ahead writes the missing recent summary; one that finds the
 * recent summary without its copy writes the copy. Either way the vault ends
 * as if the process had never stopped.
 */

export type { CompactionReport, WaterfallReport, WaterfallRunContext } from './report.js';

/** One planned compaction, as `build --dry-run` and `compact --dry-run` list it. */
export interface PlannedCompaction {
  compaction: number;
  count: number;
  reason: CompactionStep['reason'];
  /** Memories summarized into the new recent summary. */
  recent: number;
  /** The old recent summary is folded into the long-term one first. */
  fold: boolean;
}

/** What the waterfall of one stream will do: a pure function of its memories, its two summaries and the config. */
export interface WaterfallStreamPlan {
  stream: string;
  memories: number;
  /** `compact --rebuild`: every compaction is replayed from the first memory. */
  rebuild: boolean;
  /** A rebuild replaces a hand-edited recent summary: the edit goes to `history/` (its waterfall/history copy lacks it). */
  keepRecentEdit: boolean;
  planned: PlannedCompaction[];
  /** Why `--force` does nothing, when it does not. */
  skipped?: string;
  /** Position and layers before the compactions. */
  position: WaterfallPosition;
  layers: { longterm: number; recent: number; immediate: number };
  /** The compactions with their memories, for the apply step (the data above says the same in numbers). */
  steps: CompactionStep[];
}

/**
 * Plans the waterfall of one stream. Pure: reads nothing, writes nothing.
 * `stream.memories` must already exclude memories dated after `now`.
 */
export function planWaterfallStream(
  stream: StreamState,
  config: Config,
  options: { force: boolean; rebuild: boolean },
): WaterfallStreamPlan {
  const windows = windowsOf(config);
  const onDisk = waterfallSummaries(stream);
  // A rebuild starts from nothing: the steps fold what this run writes, never what was on disk.
  const initial = options.rebuild ? { recent: undefined, longterm: undefined } : onDisk;
  const plan = planWaterfall({ memories: stream.memories, ...initial, windows, force: options.force });
  const layers = assignLayers(stream.memories, initial.recent, initial.longterm);
  const old = onDisk.recent;
  return {
    stream: stream.name,
    memories: stream.memories.length,
    rebuild: options.rebuild,
    keepRecentEdit: options.rebuild && old !== undefined && old.bodyHash !== old.meta.output_hash,
    planned: plan.steps.map((step) => ({
      compaction: step.compaction,
      count: step.count,
      reason: step.reason,
      recent: step.recent.length,
      fold: step.fold !== null,
    })),
    ...(plan.skipped ? { skipped: plan.skipped } : {}),
    position: waterfallPosition(stream.memories.length, initial.recent, initial.longterm, windows),
    layers: { longterm: layers.longterm.length, recent: layers.recent.length, immediate: layers.immediate.length },
    steps: plan.steps,
  };
}

/** The report of a dry run: the plan, nothing done. */
export function plannedWaterfallReport(plan: WaterfallStreamPlan): WaterfallReport {
  return {
    ...emptyReport(plan),
    planned: plan.planned,
    ...(plan.skipped ? { skipped: plan.skipped } : {}),
    layers: plan.layers,
  };
}

function emptyReport(plan: WaterfallStreamPlan): WaterfallReport {
  return {
    stream: plan.stream,
    memories: plan.memories,
    compactions: [],
    planned: [],
    position: plan.position,
    layers: { longterm: 0, recent: 0, immediate: 0 },
    context: null,
    usage: { calls: 0, inputTokens: 0, outputTokens: 0, retries: 0, ms: 0 },
    notes: [],
    written: [],
    historyCopies: [],
  };
}

/** Runs a waterfall plan: the compactions in order, then CONTEXT.md. Its report is made from what each part returns. */
export async function applyWaterfall(stream: StreamState, plan: WaterfallStreamPlan, ctx: WaterfallRunContext): Promise<WaterfallReport> {
  const started = performance.now();
  const windows = windowsOf(ctx.config);
  const run = { keepRecentEdit: plan.keepRecentEdit };
  if (plan.rebuild) {
    stream.summaries.delete(vaultPaths.waterfallRecent(stream.name));
    stream.summaries.delete(vaultPaths.waterfallLongterm(stream.name));
  }
  const parts: StepPart[] = plan.rebuild ? [] : [restoreHistoryCopy(stream, ctx)];
  const compactions: CompactionReport[] = [];
  let failed: WaterfallReport['failed'];
  const taken = new Set(listHistory(ctx.vaultDir, stream.name));
  for (const step of plan.steps) {
    const outcome = await compact(stream, step, taken, run, ctx);
    parts.push(...outcome.parts);
    if (outcome.report) compactions.push(outcome.report);
    if (!outcome.error) continue;
    // What was written so far is a consistent state (see the write order above): the next build picks up from there.
    const { error } = outcome;
    failed = { compaction: step.compaction, tier: error.job.tier as WaterfallTier, kind: error.kind, reason: error.message };
    const note = `compaction ${step.compaction} (${error.job.tier}) failed: ${error.message}; the next build retries it`;
    parts.push({ ...nothingDone(), usage: { ...nothingDone().usage, calls: error.usage.calls }, notes: [note] });
    break;
  }

  const { recent, longterm } = waterfallSummaries(stream);
  const layers = assignLayers(stream.memories, recent, longterm);
  parts.push({ ...nothingDone(), notes: layers.notes });
  const position = waterfallPosition(stream.memories.length, recent, longterm, windows);
  const context = writeContext(stream, layers, position, recent, longterm, ctx);
  parts.push(context.part);
  return {
    ...emptyReport(plan),
    compactions,
    position,
    layers: { longterm: layers.longterm.length, recent: layers.recent.length, immediate: layers.immediate.length },
    context: context.report,
    usage: { ...sumUsage(parts), ms: Math.round(performance.now() - started) },
    notes: parts.flatMap((p) => p.notes),
    written: parts.flatMap((p) => p.written),
    historyCopies: parts.flatMap((p) => p.historyCopies),
    ...(plan.skipped ? { skipped: plan.skipped } : {}),
    ...(failed ? { failed } : {}),
  };
}

function nothingDone(): StepPart {
  return { written: [], historyCopies: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, retries: 0 }, notes: [] };
}

function sumUsage(parts: readonly StepPart[]): StepPart['usage'] {
  const sum = nothingDone().usage;
  for (const { usage } of parts) {
    sum.calls += usage.calls;
    sum.inputTokens += usage.inputTokens;
    sum.outputTokens += usage.outputTokens;
    sum.retries += usage.retries;
  }
  return sum;
}

/** The current recent summary names a history copy that is not there (a build stopped before writing it): write it. */
function restoreHistoryCopy(stream: StreamState, ctx: WaterfallRunContext): StepPart {
  const { recent } = waterfallSummaries(stream);
  const copyPath = recent?.meta.waterfall?.history;
  const writer = writerOf(ctx);
  if (!recent || !copyPath || writer.stat(copyPath) !== undefined) return nothingDone();
  if (recent.bodyHash !== recent.meta.output_hash)
    return {
      ...nothingDone(),
      notes: [`the history copy ${copyPath} is missing and ${recent.path} was edited since: the copy cannot be restored`],
    };
  const text = writer.read(recent.path);
  if (text === undefined) return nothingDone();
  const written = writer.write([{ path: copyPath, text }], ctx.now);
  return {
    ...nothingDone(),
    written: written.written,
    historyCopies: written.written,
    notes: [`restored the missing history copy ${copyPath}`],
  };
}

function writeContext(
  stream: StreamState,
  layers: ReturnType<typeof assignLayers>,
  position: WaterfallPosition,
  recent: Summary | undefined,
  longterm: Summary | undefined,
  ctx: WaterfallRunContext,
): { report: NonNullable<WaterfallReport['context']>; part: StepPart } {
  const contextPath = vaultPaths.context(stream.name);
  const maxTokens = ctx.config.waterfall.context_max_tokens;
  const base = { stream: stream.name, position, layers, longterm, recent, maxTokens, tokenizer: ctx.config.tokenizer };
  const writer = writerOf(ctx);
  if (readContextHash(writer.read(contextPath)) === contextInputHash(base))
    return { report: { path: contextPath, changed: false, maxTokens }, part: nothingDone() };
  const assembled = assembleContext({
    ...base,
    readMemory: (memory) => ctx.loaded.content.memory(memory),
    readSummary: (summary) => ctx.loaded.content.summary(summary),
  });
  const written = writer.write([{ path: contextPath, text: assembled.text }], ctx.now);
  const report = {
    path: contextPath,
    changed: written.written.length > 0,
    tokens: assembled.tokens,
    bytes: assembled.bytes,
    maxTokens,
    shortened: assembled.shortened,
    leftOut: assembled.leftOut,
    overBudget: assembled.overBudget,
  };
  const notes = assembled.overBudget
    ? [
        `${contextPath} is ${assembled.tokens} tokens, over its ${maxTokens}-token budget even with every verbatim memory left out: ` +
          'raise `waterfall.context_max_tokens` or lower the summary budgets',
      ]
    : [];
  return { report, part: { ...nothingDone(), written: written.written, notes } };
}

/** The input hash CONTEXT.md names (undefined: no file, or none named). */
function readContextHash(text: string | undefined): string | undefined {
  return text === undefined ? undefined : /^input_hash: ([0-9a-f]+)$/m.exec(text.slice(0, 2048))?.[1];
}
