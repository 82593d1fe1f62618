import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { sha256 } from '../../util/hash.js';
import { countBytes, countTokens } from '../../util/tokens.js';
import type { StreamState, Summary } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import { parseSummaryFile } from '../../vault/summary-file.js';
import { checkIntegrity, type HistoryCopy, type IntegrityReport } from './integrity.js';
import { assignLayers, waterfallPosition, type WaterfallWindows } from './plan.js';
import { contextInputHash } from './context.js';

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

/** The waterfall outputs of one stream as found on disk: `CONTEXT.md`'s text and the history copies. */
export interface WaterfallFiles {
  context: string | undefined;
  history: ReadonlyMap<string, HistoryCopy>;
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

/** Vault-relative paths of the files in `<stream>/waterfall/history/`. */
export function listHistory(vaultDir: string, stream: string): string[] {
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

/** Reads what the status of a waterfall stream needs from disk: `CONTEXT.md` and the history copies. */
export function readWaterfallFiles(vaultDir: string, stream: string): WaterfallFiles {
  let context: string | undefined;
  try {
    context = readFileSync(path.join(vaultDir, vaultPaths.context(stream)), 'utf8');
  } catch {
    context = undefined;
  }
  return { context, history: readHistoryCopies(vaultDir, stream) };
}

/**
 * The memory status of a waterfall stream: position, sizes against budgets,
 * CONTEXT.md, and the integrity report (reads the history copies). Read-only.
 */
export function waterfallStatus(stream: StreamState, config: Config, vaultDir: string): WaterfallStatus {
  return waterfallStatusOf(stream, config, readWaterfallFiles(vaultDir, stream.name));
}

/** The status of a waterfall stream from its state and its files on disk. Pure. */
export function waterfallStatusOf(stream: StreamState, config: Config, files: WaterfallFiles): WaterfallStatus {
  const windows = windowsOf(config);
  const { recent, longterm } = waterfallSummaries(stream);
  const position = waterfallPosition(stream.memories.length, recent, longterm, windows);
  const layers = assignLayers(stream.memories, recent, longterm);
  const integrity = checkIntegrity({ stream: stream.name, memories: stream.memories, recent, longterm, history: files.history, windows });
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
  if (files.context !== undefined) {
    const text = files.context;
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
