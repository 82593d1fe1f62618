import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createSummarizer } from '../llm/create.js';
import type { Summarizer } from '../llm/types.js';
import { minuteOfDay, todayIn } from '../time/periods.js';
import { UserError } from '../util/errors.js';
import { hashValue, sha256 } from '../util/hash.js';
import { acquireBuildLock } from '../util/lock.js';
import { countBytes, countTokens } from '../util/tokens.js';
import type { LoadedVault } from '../vault/load.js';
import { loadVaultWithWorkers, vaultLoadOptions } from './build-pool.js';
import type { Memory, SourceRef, StreamState, Summary, SummaryMeta, WaterfallTier } from '../vault/model.js';
import { vaultPaths } from '../vault/paths.js';
import { parseSummaryFile, writeSummaryFile } from '../vault/summary-file.js';
import { checkIntegrity, historyIdOf, type HistoryCopy, type IntegrityReport } from './integrity.js';
import type { RollupJob } from './plan.js';
import { RollupError, runRollup, type RollupContext, type RollupResult } from './rollup.js';
import {
  assignLayers,
  planWaterfall,
  waterfallPosition,
  type CompactionStep,
  type WaterfallPosition,
  type WaterfallWindows,
} from './waterfall.js';
import { assembleContext, contextInputHash } from './waterfall-context.js';
import { applyWrites, takeMovedAside } from './write.js';

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

export interface WaterfallRunContext {
  config: Config;
  /** Absolute path of the vault folder. */
  vaultDir: string;
  loaded: LoadedVault;
  summarizer: Summarizer;
  now: Date;
  /** Compact now whatever the count (`memvault compact --force`). */
  force: boolean;
  /**
   * Replay every compaction from the first memory, ignoring the summaries on
   * disk (`memvault compact --rebuild`): after memories were edited, deleted
   * or added with old dates. Nothing is deleted: the replaced summaries go to
   * history, old copies stay in `waterfall/history/`.
   */
  rebuild?: boolean;
  /** Plan only: report the compactions that would run, write nothing. */
  dryRun: boolean;
}

export interface CompactionReport {
  compaction: number;
  /** Memory count it ran at (`compacted_at_count`). */
  count: number;
  reason: CompactionStep['reason'];
  /** The new long-term summary; null when nothing was folded (first compaction, resumed one). */
  longterm: { path: string; memories: number; tokens: number; generator: string; flagged: boolean } | null;
  recent: {
    path: string;
    memories: number;
    positions: [number, number];
    tokens: number;
    generator: string;
    flagged: boolean;
    history: string;
  };
}

export interface WaterfallReport {
  stream: string;
  memories: number;
  compactions: CompactionReport[];
  /** Dry run: what would run. */
  planned: { compaction: number; count: number; reason: CompactionStep['reason']; recent: number; fold: boolean }[];
  /** Why `--force` did nothing, when it did not. */
  skipped?: string;
  /** A compaction the summarizer could not produce; the vault is left consistent and the next build retries. */
  failed?: { compaction: number; tier: WaterfallTier; kind: string; reason: string };
  position: WaterfallPosition;
  layers: { longterm: number; recent: number; immediate: number };
  context: {
    path: string;
    changed: boolean;
    tokens?: number;
    bytes?: number;
    maxTokens: number;
    shortened?: number;
    leftOut?: number;
    overBudget?: boolean;
  } | null;
  usage: { calls: number; inputTokens: number; outputTokens: number; retries: number; ms: number };
  /** Things worth telling: repairs done, anomalies seen. */
  notes: string[];
  written: string[];
  historyCopies: string[];
}

export function windowsOf(config: Config): WaterfallWindows {
  return { immediate: config.waterfall.immediate_window, recent: config.waterfall.recent_window };
}

/** The two waterfall summaries of a stream as loaded (undefined when absent or of the wrong tier). */
export function waterfallSummaries(stream: StreamState): { recent: Summary | undefined; longterm: Summary | undefined } {
  const recent = stream.summaries.get(vaultPaths.waterfallRecent(stream.name));
  const longterm = stream.summaries.get(vaultPaths.waterfallLongterm(stream.name));
  return {
    recent: recent?.meta.tier === 'waterfall-recent' ? recent : undefined,
    longterm: longterm?.meta.tier === 'waterfall-longterm' ? longterm : undefined,
  };
}

/**
 * Compacts one waterfall stream as far as its count (or `force`) asks, then
 * writes its CONTEXT.md. `stream.memories` must already exclude memories
 * dated after `now`. Updates `stream.summaries` with what it wrote.
 */
export async function runWaterfall(stream: StreamState, ctx: WaterfallRunContext): Promise<WaterfallReport> {
  const started = performance.now();
  const windows = windowsOf(ctx.config);
  // A hand-edited recent summary about to be replaced is kept in history/ (its waterfall/history copy lacks the edit).
  const run = { keepRecentEdit: false };
  if (ctx.rebuild) {
    // Start from nothing: the steps fold what this run writes, never what was on disk.
    const old = waterfallSummaries(stream).recent;
    run.keepRecentEdit = old !== undefined && old.bodyHash !== old.meta.output_hash;
    stream.summaries.delete(vaultPaths.waterfallRecent(stream.name));
    stream.summaries.delete(vaultPaths.waterfallLongterm(stream.name));
  }
  const initial = waterfallSummaries(stream);
  const plan = planWaterfall({ memories: stream.memories, ...initial, windows, force: ctx.force });
  const report: WaterfallReport = {
    stream: stream.name,
    memories: stream.memories.length,
    compactions: [],
    planned: plan.steps.map((step) => ({
      compaction: step.compaction,
      count: step.count,
      reason: step.reason,
      recent: step.recent.length,
      fold: step.fold !== null,
    })),
    ...(plan.skipped ? { skipped: plan.skipped } : {}),
    position: waterfallPosition(stream.memories.length, initial.recent, initial.longterm, windows),
    layers: { longterm: 0, recent: 0, immediate: 0 },
    context: null,
    usage: { calls: 0, inputTokens: 0, outputTokens: 0, retries: 0, ms: 0 },
    notes: [],
    written: [],
    historyCopies: [],
  };
  if (ctx.dryRun) {
    const layers = assignLayers(stream.memories, initial.recent, initial.longterm);
    report.layers = { longterm: layers.longterm.length, recent: layers.recent.length, immediate: layers.immediate.length };
    return report;
  }
  report.planned = [];

  if (!ctx.rebuild) restoreHistoryCopy(stream, ctx, report);
  const taken = new Set(listHistory(ctx.vaultDir, stream.name));
  for (const step of plan.steps) {
    try {
      await compact(stream, step, taken, run, ctx, report);
    } catch (error) {
      if (!(error instanceof RollupError)) throw error;
      // What was written so far is a consistent state (see the write order above): the next build picks up from there.
      report.failed = { compaction: step.compaction, tier: error.job.tier as WaterfallTier, kind: error.kind, reason: error.message };
      report.usage.calls += error.usage.calls;
      report.notes.push(`compaction ${step.compaction} (${error.job.tier}) failed: ${error.message}; the next build retries it`);
      break;
    }
  }

  const { recent, longterm } = waterfallSummaries(stream);
  const layers = assignLayers(stream.memories, recent, longterm);
  report.notes.push(...layers.notes);
  report.position = waterfallPosition(stream.memories.length, recent, longterm, windows);
  report.layers = { longterm: layers.longterm.length, recent: layers.recent.length, immediate: layers.immediate.length };
  writeContext(stream, layers, report.position, recent, longterm, ctx, report);
  report.usage.ms = Math.round(performance.now() - started);
  return report;
}

/** The current recent summary names a history copy that is not there (a build stopped before writing it): write it. */
function restoreHistoryCopy(stream: StreamState, ctx: WaterfallRunContext, report: WaterfallReport): void {
  const { recent } = waterfallSummaries(stream);
  const copyPath = recent?.meta.waterfall?.history;
  if (!recent || !copyPath || existsSync(path.join(ctx.vaultDir, copyPath))) return;
  if (recent.bodyHash !== recent.meta.output_hash) {
    report.notes.push(`the history copy ${copyPath} is missing and ${recent.path} was edited since: the copy cannot be restored`);
    return;
  }
  const written = applyWrites(
    ctx.vaultDir,
    [{ path: copyPath, text: readFileSync(path.join(ctx.vaultDir, recent.path), 'utf8') }],
    ctx.now,
  );
  report.written.push(...written.written);
  report.historyCopies.push(...written.written);
  report.notes.push(`restored the missing history copy ${copyPath}`);
}

async function compact(
  stream: StreamState,
  step: CompactionStep,
  taken: Set<string>,
  run: { keepRecentEdit: boolean },
  ctx: WaterfallRunContext,
  report: WaterfallReport,
): Promise<void> {
  const name = stream.name;
  const { recent: previousRecent, longterm: previousLongterm } = waterfallSummaries(stream);
  // The long-term job reads summaries only, the recent one memories only: a memory id can never shadow a summary's.
  const summariesById = new Map<string, Summary>();
  const base = {
    summarizer: ctx.summarizer,
    tokenizer: ctx.config.tokenizer,
    budgets: { 'waterfall-recent': ctx.config.waterfall.recent, 'waterfall-longterm': ctx.config.waterfall.longterm },
    retries: ctx.config.llm.retries,
    content: ctx.loaded.content,
  };
  const longtermContext: RollupContext = { ...base, memoriesById: new Map(), summariesById };
  const recentContext: RollupContext = {
    ...base,
    memoriesById: new Map(step.recent.map((memory) => [memory.id, memory])),
    summariesById: new Map(),
  };
  let longtermReport: CompactionReport['longterm'] = null;

  // 1. longterm ← summarize(old longterm + old recent)
  if (step.fold && previousRecent) {
    const sources: SourceRef[] = [];
    if (previousLongterm) {
      sources.push({ id: 'waterfall/longterm', sha256: previousLongterm.sha256 });
      summariesById.set('waterfall/longterm', previousLongterm);
    }
    const edited = previousRecent.bodyHash !== previousRecent.meta.output_hash;
    const copyPath = previousRecent.meta.waterfall?.history;
    const copyId = copyPath ? historyIdOf(name, copyPath) : 'waterfall/recent';
    // A hand-edited recent summary is folded as edited; the chain still points at the copy of what was generated.
    const foldedId = edited ? 'waterfall/recent' : copyId;
    sources.push({ id: foldedId, sha256: previousRecent.sha256 });
    summariesById.set(foldedId, previousRecent);
    const copySha =
      edited && copyPath && existsSync(path.join(ctx.vaultDir, copyPath))
        ? sha256(readFileSync(path.join(ctx.vaultDir, copyPath)))
        : previousRecent.sha256;
    const folded = [...(previousLongterm?.meta.folded ?? []), { id: copyId, sha256: copySha }];
    const job = waterfallJob(
      'waterfall-longterm',
      name,
      `memories 1-${step.fold.memories}`,
      step.fold.coversFrom,
      step.fold.coversThrough,
      sources,
      step.fold.memories,
      ctx,
      step,
    );
    job.folded = folded;
    const result = await runRollup(job, longtermContext);
    const meta: SummaryMeta = {
      ...result.meta,
      waterfall: {
        compaction: step.compaction,
        compacted_at_count: step.count,
        covers_from: step.fold.coversFrom.id,
        covers_through: step.fold.coversThrough.id,
      },
    };
    const text = writeSummaryFile(meta, result.body);
    write(
      stream,
      [{ path: job.path, text, history: { stream: name, tier: 'waterfall-longterm', period: 'longterm' } }],
      meta,
      result.body,
      ctx,
      report,
    );
    addUsage(report, result);
    longtermReport = {
      path: job.path,
      memories: step.fold.memories,
      tokens: meta.tokens,
      generator: generatorName(meta),
      flagged: result.flagged,
    };
  }

  // 2. recent ← summarize(memories outside the immediate window not yet in long-term)
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
  const result = await runRollup(job, recentContext);
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
  // The recent summary's history is its copy in waterfall/history/; only a hand edit, which that copy lacks, goes to history/.
  const keepEdit = run.keepRecentEdit || (previousRecent !== undefined && previousRecent.bodyHash !== previousRecent.meta.output_hash);
  run.keepRecentEdit = false;
  write(
    stream,
    [{ path: job.path, text, ...(keepEdit ? { history: { stream: name, tier: 'waterfall-recent' as const, period: 'recent' } } : {}) }],
    meta,
    result.body,
    ctx,
    report,
  );
  const copy = applyWrites(ctx.vaultDir, [{ path: copyPath, text }], ctx.now);
  report.written.push(...copy.written);
  report.historyCopies.push(...copy.written);
  addUsage(report, result);
  report.compactions.push({
    compaction: step.compaction,
    count: step.count,
    reason: step.reason,
    longterm: longtermReport,
    recent: {
      path: job.path,
      memories: step.recent.length,
      positions: step.positions,
      tokens: meta.tokens,
      generator: generatorName(meta),
      flagged: result.flagged,
      history: copyPath,
    },
  });
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

function write(
  stream: StreamState,
  ops: Parameters<typeof applyWrites>[1],
  meta: SummaryMeta,
  body: string,
  ctx: WaterfallRunContext,
  report: WaterfallReport,
): void {
  const written = applyWrites(ctx.vaultDir, ops, ctx.now);
  report.written.push(...written.written);
  report.historyCopies.push(...written.historyCopies);
  const op = ops[0]!;
  const fileSha = sha256(op.text);
  const summary: Summary = { meta, path: op.path, sha256: fileSha, bodyHash: sha256(body) };
  stream.summaries.set(summary.path, summary);
  const parsed = ctx.loaded.content.rememberSummary(fileSha, body);
  // Record it in the parse cache, so the next build does not read it again.
  const stat = statSync(path.join(ctx.vaultDir, op.path));
  ctx.loaded.cache.set(op.path, { size: stat.size, mtimeMs: stat.mtimeMs, sha256: fileSha, result: { type: 'summary', summary } }, parsed);
}

function addUsage(report: WaterfallReport, result: RollupResult): void {
  if (result.notes?.length) report.notes.push(`${result.job.tier}: cleaned from the model's answer: ${result.notes.join(', ')}`);
  report.usage.calls += result.usage.calls;
  report.usage.inputTokens += result.usage.inputTokens;
  report.usage.outputTokens += result.usage.outputTokens;
  report.usage.retries += Math.max(0, result.attempts - 1);
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

/** Vault-relative paths of the files in `<stream>/waterfall/history/`. */
function listHistory(vaultDir: string, stream: string): string[] {
  const dir = vaultPaths.waterfallHistoryDir(stream);
  try {
    return readdirSync(path.join(vaultDir, dir))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${dir}/${name}`);
  } catch {
    return [];
  }
}

/** Every history copy of a stream, read and parsed (for the integrity report). */
export function readHistoryCopies(vaultDir: string, stream: string): Map<string, HistoryCopy> {
  const copies = new Map<string, HistoryCopy>();
  for (const vaultPath of listHistory(vaultDir, stream)) {
    const text = readFileSync(path.join(vaultDir, vaultPath), 'utf8');
    const parsed = parseSummaryFile(text, vaultPath);
    copies.set(vaultPath, { path: vaultPath, sha256: sha256(text), summary: parsed.ok ? parsed.summary : undefined });
  }
  return copies;
}

function writeContext(
  stream: StreamState,
  layers: ReturnType<typeof assignLayers>,
  position: WaterfallPosition,
  recent: Summary | undefined,
  longterm: Summary | undefined,
  ctx: WaterfallRunContext,
  report: WaterfallReport,
): void {
  const contextPath = vaultPaths.context(stream.name);
  const maxTokens = ctx.config.waterfall.context_max_tokens;
  const base = { stream: stream.name, position, layers, longterm, recent, maxTokens, tokenizer: ctx.config.tokenizer };
  const file = path.join(ctx.vaultDir, contextPath);
  if (existsSync(file) && readContextHash(file) === contextInputHash(base)) {
    report.context = { path: contextPath, changed: false, maxTokens };
    return;
  }
  const assembled = assembleContext({
    ...base,
    readMemory: (memory) => ctx.loaded.content.memory(memory),
    readSummary: (summary) => ctx.loaded.content.summary(summary),
  });
  const written = applyWrites(ctx.vaultDir, [{ path: contextPath, text: assembled.text }], ctx.now);
  report.written.push(...written.written);
  report.context = {
    path: contextPath,
    changed: written.written.length > 0,
    tokens: assembled.tokens,
    bytes: assembled.bytes,
    maxTokens,
    shortened: assembled.shortened,
    leftOut: assembled.leftOut,
    overBudget: assembled.overBudget,
  };
  if (assembled.overBudget)
    report.notes.push(
      `${contextPath} is ${assembled.tokens} tokens, over its ${maxTokens}-token budget even with every verbatim memory left out: raise \`waterfall.context_max_tokens\` or lower the summary budgets`,
    );
}

function readContextHash(file: string): string | undefined {
  try {
    return /^input_hash: ([0-9a-f]+)$/m.exec(readFileSync(file, 'utf8').slice(0, 2048))?.[1];
  } catch {
    return undefined;
  }
}

/** Memories dated up to `now`: a build as of a past moment sees the stream as it was then. */
export function memoriesUpTo(memories: readonly Memory[], now: Date, timezone: string): Memory[] {
  const day = todayIn(now, timezone);
  const minute = minuteOfDay(now, timezone);
  return memories.filter((memory) => memory.day < day || (memory.day === day && memory.minute <= minute));
}

// ---------------------------------------------------------------------------
// `memvault compact` and the status figures

export interface CompactOptions {
  /** Directory holding `memory.config.yaml`. */
  root: string;
  now: Date;
  /** Only this stream (it must have `waterfall: true`); default every waterfall stream. */
  stream?: string;
  force?: boolean;
  /** Replay every compaction from the first memory (see `WaterfallRunContext.rebuild`). */
  rebuild?: boolean;
  dryRun?: boolean;
  /** Injected summarizer (tests); by default the configured profile's. */
  summarizer?: Summarizer;
}

export interface CompactReport {
  now: string;
  vault: string;
  dryRun: boolean;
  streams: WaterfallReport[];
}

/**
 * `memvault compact`: the waterfall of every waterfall stream (or one), under
 * the build lock, without the calendar rollups. With `force`, compacts even
 * below the next trigger count (the seed's `@compact-memories`).
 */
export async function compactVault(options: CompactOptions): Promise<CompactReport> {
  const { config, errors } = await loadConfig(options.root);
  if (errors.length > 0)
    throw new UserError(
      `memory.config.yaml is invalid (${errors.length} problem${errors.length > 1 ? 's' : ''})`,
      'run `memvault status` to see them',
      'config/invalid',
    );
  const waterfallStreams = Object.entries(config.streams)
    .filter(([, s]) => s.waterfall)
    .map(([name]) => name);
  if (options.stream !== undefined && !waterfallStreams.includes(options.stream)) {
    const known = config.streams[options.stream] !== undefined;
    throw new UserError(
      known ? `stream \`${options.stream}\` is not a waterfall stream` : `stream \`${options.stream}\` is not configured`,
      known
        ? `set \`waterfall: true\` for it under \`streams:\` in memory.config.yaml`
        : `add it under \`streams:\` in memory.config.yaml with \`waterfall: true\`${waterfallStreams.length > 0 ? `, or use one of: ${waterfallStreams.join(', ')}` : ''}`,
      'compact/stream',
    );
  }
  if (waterfallStreams.length === 0)
    throw new UserError(
      'no stream has `waterfall: true`',
      'set `waterfall: true` for an agent stream under `streams:` in memory.config.yaml',
      'compact/no-stream',
    );
  const release = options.dryRun ? async () => {} : await acquireBuildLock(path.join(options.root, '.memvault'), 'memvault compact');
  try {
    const vaultDir = path.resolve(options.root, config.vault);
    const loaded = await loadVaultWithWorkers(vaultLoadOptions(options.root, config));
    const summarizer = options.summarizer ?? createSummarizer(config, process.env, { root: options.root, dryRun: options.dryRun ?? false });
    const report: CompactReport = { now: options.now.toISOString(), vault: config.vault, dryRun: options.dryRun ?? false, streams: [] };
    for (const name of options.stream !== undefined ? [options.stream] : waterfallStreams) {
      const loadedStream = loaded.state.streams.get(name) ?? { name, memories: [], summaries: new Map() };
      const stream: StreamState = { ...loadedStream, memories: memoriesUpTo(loadedStream.memories, options.now, config.timezone) };
      const run = {
        config,
        vaultDir,
        loaded,
        summarizer,
        now: options.now,
        force: options.force ?? false,
        rebuild: options.rebuild ?? false,
        dryRun: options.dryRun ?? false,
      };
      const streamReport = await runWaterfall(stream, run);
      // A file memvault did not write at a generated path (CONTEXT.md by hand) was moved aside, never overwritten: say where.
      for (const move of takeMovedAside())
        streamReport.notes.push(`${move.from} was not written by memvault: moved to ${move.to} before writing the generated file`);
      report.streams.push(streamReport);
    }
    if (!report.dryRun) loaded.cache.save();
    return report;
  } finally {
    await release();
  }
}

/** What `memvault status` shows for a waterfall stream. */
export interface WaterfallStatus {
  memories: number;
  compaction: number;
  compacted_at_count: number;
  since_last_compaction: number;
  next_compaction_at: number;
  windows: { immediate: number; recent: number };
  layers: { longterm: number; recent: number; immediate: number };
  summaries: Record<'recent' | 'longterm', SummaryStatus | null>;
  context: { path: string; tokens: number; bytes: number; max_tokens: number; stale: boolean } | null;
  integrity: IntegrityReport;
}

interface SummaryStatus {
  path: string;
  memories: number;
  tokens: number;
  bytes: number;
  budget_tokens: number;
  budget_bytes: number;
  over_budget: boolean;
  edited: boolean;
}

/**
 * The memory status of a waterfall stream: position, sizes against budgets,
 * CONTEXT.md, and the integrity report (reads the history copies). Read-only.
 */
export function waterfallStatus(stream: StreamState, config: Config, vaultDir: string): WaterfallStatus {
  const windows = windowsOf(config);
  const { recent, longterm } = waterfallSummaries(stream);
  const position = waterfallPosition(stream.memories.length, recent, longterm, windows);
  const layers = assignLayers(stream.memories, recent, longterm);
  const integrity = checkIntegrity({
    stream: stream.name,
    memories: stream.memories,
    recent,
    longterm,
    history: readHistoryCopies(vaultDir, stream.name),
    windows,
  });
  const summaryStatus = (summary: Summary | undefined, budget: { target_tokens: number; max_bytes: number }): SummaryStatus | null =>
    summary
      ? {
          path: summary.path,
          memories: summary.meta.memories,
          tokens: summary.meta.tokens,
          bytes: summary.meta.bytes,
          budget_tokens: budget.target_tokens,
          budget_bytes: budget.max_bytes,
          over_budget: summary.meta.review?.includes('over-budget') ?? false,
          edited: summary.bodyHash !== summary.meta.output_hash,
        }
      : null;
  const contextPath = vaultPaths.context(stream.name);
  let context: WaterfallStatus['context'] = null;
  try {
    const text = readFileSync(path.join(vaultDir, contextPath), 'utf8');
    const expected = contextInputHash({
      stream: stream.name,
      position,
      layers,
      longterm,
      recent,
      maxTokens: config.waterfall.context_max_tokens,
      tokenizer: config.tokenizer,
    });
    context = {
      path: contextPath,
      tokens: countTokens(text, config.tokenizer),
      bytes: countBytes(text),
      max_tokens: config.waterfall.context_max_tokens,
      stale: /^input_hash: ([0-9a-f]+)$/m.exec(text)?.[1] !== expected,
    };
  } catch {
    context = null;
  }
  return {
    memories: position.memories,
    compaction: position.compaction,
    compacted_at_count: position.lastCount,
    since_last_compaction: position.sinceLast,
    next_compaction_at: position.nextAt,
    windows,
    layers: { longterm: layers.longterm.length, recent: layers.recent.length, immediate: layers.immediate.length },
    summaries: { recent: summaryStatus(recent, config.waterfall.recent), longterm: summaryStatus(longterm, config.waterfall.longterm) },
    context,
    integrity,
  };
}

/** Text lines of a waterfall status, for `memvault status`. */
export function renderWaterfallStatus(status: WaterfallStatus): string[] {
  const lines: string[] = [];
  const { layers, integrity } = status;
  lines.push(
    `  waterfall: compaction ${status.compaction} at ${status.compacted_at_count} memories, ${status.since_last_compaction} since; next at ${status.next_compaction_at} (immediate ${status.windows.immediate}, recent ${status.windows.recent})`,
  );
  lines.push(`  layers: long-term ${layers.longterm}, recent ${layers.recent}, immediate ${layers.immediate} (verbatim)`);
  for (const [name, s] of Object.entries(status.summaries)) {
    if (!s) continue;
    const flags = [s.over_budget ? 'over budget' : '', s.edited ? 'edited' : ''].filter(Boolean).join(', ');
    lines.push(
      `  ${name.padEnd(9)} ${s.path}: ${s.memories} memories, ${s.tokens}/${s.budget_tokens} tokens, ${s.bytes}/${s.budget_bytes} bytes${flags ? ` (${flags})` : ''}`,
    );
  }
  if (status.context)
    lines.push(
      `  context: ${status.context.path} ${status.context.tokens}/${status.context.max_tokens} tokens${status.context.stale ? ' (stale: run `memvault build`)' : ''}`,
    );
  else lines.push('  context: not built yet (run `memvault build`)');
  const a = integrity.accounted;
  lines.push(
    `  integrity: ${integrity.ok ? 'ok' : `${integrity.problems.length} problem${integrity.problems.length === 1 ? '' : 's'}`}; ${a.in_one_layer}/${a.memories} memories in exactly one layer; ${integrity.sources.checked - integrity.sources.changed.length}/${integrity.sources.checked} sources unchanged; ${integrity.history.present}/${integrity.history.recent_summaries} history copies`,
  );
  for (const problem of integrity.problems) lines.push(`    ${problem.check}: ${problem.path}: ${problem.reason}`);
  return lines;
}
