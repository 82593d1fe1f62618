import type { Config } from '../../config/schema.js';
import type { Summarizer } from '../../llm/types.js';
import type { LoadedVault } from '../../load/load.js';
import type { WaterfallTier } from '../../vault/model.js';
import type { Writer } from '../writer.js';
import type { CompactionStep, WaterfallPosition } from './plan.js';

/** What a waterfall run is handed (`WaterfallRunContext`) and what it reports; types only, shared by build.ts and step.ts. */

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
  /** Where the run writes (writer.ts): a build's writer, a dry run's recording one; the disk when absent (`memvault compact`). */
  writer?: Writer;
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
