import type { Memory, Summary } from '../../vault/model.js';

/**
 * Waterfall planning (docs/waterfall.md): count-based compaction for agent
 * streams. Pure functions of the stream's memories (in memory order: by
 * date, then path), the two waterfall summaries on disk and the windows; the
 * I/O lives in `waterfall-build.ts`.
 *
 * Layers. At every moment each memory is in exactly one of three layers:
 * - long-term: every memory up to the long-term summary's `covers_through`;
 * - recent: the memories the recent summary lists as its sources;
 * - immediate: all the others, kept verbatim. Right after a compaction these
 *   are the newest `immediate_window` memories; they grow by one per new
 *   memory until the next compaction.
 *
 * Triggers. The first compaction happens at `immediate + recent + 1`
 * memories, then every `recent` new memories (129, 193, 257, … by default),
 * counted from the `compacted_at_count` the last compaction wrote into the
 * summaries' frontmatter, so a new process continues where the last left off.
 * A build that finds the count past several triggers (a bulk import, a
 * crashed process) replays each compaction at its own count, so the result is
 * the same as if it had run after every memory.
 *
 * A compaction at count T: the previous recent summary (with the previous
 * long-term one) is folded into a new long-term summary; then the memories
 * among the first T that are neither in the long-term range nor in the newest
 * `immediate` become the new recent summary.
 */

export interface WaterfallWindows {
  /** Newest memories kept verbatim after a compaction (`waterfall.immediate_window`, default 64). */
  immediate: number;
  /** Memories per compaction (`waterfall.recent_window`, default 64). */
  recent: number;
}

/**
 * The memory count at which the next compaction happens, given the count at
 * the last one (0: none yet).
 *
 * @example
 *   nextTrigger(0, { immediate: 64, recent: 64 });   // 129
 *   nextTrigger(129, { immediate: 64, recent: 64 }); // 193
 */
export function nextTrigger(lastCount: number, windows: WaterfallWindows): number {
  return lastCount === 0 ? windows.immediate + windows.recent + 1 : lastCount + windows.recent;
}

/** Where a stream stands: the figures `memvault status` shows. */
export interface WaterfallPosition {
  memories: number;
  /** Number of the last compaction (0: none yet). */
  compaction: number;
  /** Memory count at the last compaction (0: none yet). */
  lastCount: number;
  sinceLast: number;
  /** Memory count that triggers the next compaction. */
  nextAt: number;
  /** A compaction was interrupted after its fold: the next build writes its recent summary. */
  interrupted: boolean;
}

/** The count and number of the last compaction recorded in the summaries (the newer of the two). */
export function waterfallPosition(
  memoryCount: number,
  recent: Summary | undefined,
  longterm: Summary | undefined,
  windows: WaterfallWindows,
): WaterfallPosition {
  const r = recent?.meta.waterfall;
  const l = longterm?.meta.waterfall;
  const last = l && (!r || l.compaction > r.compaction) ? l : r;
  const lastCount = last?.compacted_at_count ?? 0;
  return {
    memories: memoryCount,
    compaction: last?.compaction ?? 0,
    lastCount,
    sinceLast: memoryCount - lastCount,
    nextAt: nextTrigger(lastCount, windows),
    interrupted: l !== undefined && l.compaction > (r?.compaction ?? 0),
  };
}

/** The three layers of a stream, each in memory order. */
export interface WaterfallLayers {
  longterm: Memory[];
  recent: Memory[];
  immediate: Memory[];
  /** Index of the last memory in the long-term range (-1: none). */
  boundary: number;
  /** Things that do not add up (a covered memory deleted or renamed), for the build report. */
  notes: string[];
}

/**
 * Splits the memories into long-term / recent / immediate. A partition by
 * construction: every memory lands in exactly one layer. (`integrity.ts`
 * checks the same split against the summaries' provenance.)
 */
export function assignLayers(memories: readonly Memory[], recent: Summary | undefined, longterm: Summary | undefined): WaterfallLayers {
  const notes: string[] = [];
  const boundary = longtermBoundary(memories, longterm, notes);
  const recentIds = new Set(recent?.meta.sources.map((source) => source.id) ?? []);
  const layers: WaterfallLayers = { longterm: memories.slice(0, boundary + 1), recent: [], immediate: [], boundary, notes };
  for (let i = boundary + 1; i < memories.length; i++) {
    const memory = memories[i]!;
    (recentIds.has(memory.id) ? layers.recent : layers.immediate).push(memory);
  }
  const missing = [...recentIds].filter((id) => !memories.some((memory) => memory.id === id));
  if (missing.length > 0)
    notes.push(
      `${missing.length} memor${missing.length === 1 ? 'y' : 'ies'} of the recent summary no longer exist (first: \`${missing[0]}\`)`,
    );
  return layers;
}

function longtermBoundary(memories: readonly Memory[], longterm: Summary | undefined, notes: string[]): number {
  const through = longterm?.meta.waterfall?.covers_through;
  if (!longterm || through === undefined) return -1;
  const index = memories.findIndex((memory) => memory.id === through);
  if (index >= 0) return index;
  // The last covered memory was deleted or renamed: fall back to the count the summary covers.
  notes.push(
    `the last memory of the long-term summary, \`${through}\`, no longer exists; its first ${longterm.meta.memories} memories are taken as covered`,
  );
  return Math.min(longterm.meta.memories, memories.length) - 1;
}

/** One compaction to run, in order. */
export interface CompactionStep {
  /** Its number: 1 for the first compaction of the stream. */
  compaction: number;
  /** Memory count it happens at: the memories it sees are the first `count` (its `compacted_at_count`). */
  count: number;
  /** `resume`: an interrupted compaction whose fold is already written; only its recent summary is missing. */
  reason: 'threshold' | 'forced' | 'resume';
  /**
   * Fold the previous recent summary (and the previous long-term one, if any)
   * into a new long-term summary covering the first `memories` memories.
   * Null on the first compaction and when resuming.
   */
  fold: { memories: number; coversFrom: Memory; coversThrough: Memory } | null;
  /** The memories the new recent summary covers, in order; never empty. */
  recent: Memory[];
  /** 1-based positions of the recent memories, `[first, last]`. */
  positions: [number, number];
}

export interface WaterfallPlan {
  steps: CompactionStep[];
  /** Why a forced compaction did nothing, when it did not. */
  skipped?: string;
}

export interface WaterfallPlanInput {
  /** The stream's memories in memory order (by date, then path). */
  memories: readonly Memory[];
  recent: Summary | undefined;
  longterm: Summary | undefined;
  windows: WaterfallWindows;
  /** Compact now whatever the count (`memvault compact --force`), after any compaction due. */
  force: boolean;
}

/**
 * The compactions due now: an interrupted one first, then one per trigger
 * count reached, then a forced one. Empty when nothing is due.
 *
 * @example
 *   // 129 memories, no summary yet:
 *   planWaterfall({ memories, recent: undefined, longterm: undefined, windows: { immediate: 64, recent: 64 }, force: false });
 *   // → { steps: [{ compaction: 1, count: 129, reason: 'threshold', fold: null, recent: (memories 1–65), positions: [1, 65] }] }
 */
export function planWaterfall(input: WaterfallPlanInput): WaterfallPlan {
  const { memories, windows } = input;
  const layers = assignLayers(memories, input.recent, input.longterm);
  const position = waterfallPosition(memories.length, input.recent, input.longterm, windows);
  const steps: CompactionStep[] = [];

  // The state as it will be after each step: where the long-term range ends, where the recent one ends.
  let boundary = layers.boundary;
  let hasRecent = input.recent !== undefined && !position.interrupted;
  let recentEnd = hasRecent ? lastIndexOf(memories, layers.recent, boundary) : boundary;
  let compaction = position.compaction;
  let lastCount = position.lastCount;

  const step = (count: number, reason: CompactionStep['reason']): boolean => {
    const end = Math.min(count, memories.length) - windows.immediate; // exclusive: the newest `immediate` of the first `count` stay verbatim
    const fold = reason !== 'resume' && hasRecent;
    const newBoundary = fold ? Math.max(boundary, recentEnd) : boundary;
    if (end <= newBoundary + 1) return false;
    const recent = memories.slice(newBoundary + 1, end);
    steps.push({
      compaction: reason === 'resume' ? compaction : compaction + 1,
      count,
      reason,
      fold:
        fold && newBoundary >= 0 ? { memories: newBoundary + 1, coversFrom: memories[0]!, coversThrough: memories[newBoundary]! } : null,
      recent,
      positions: [newBoundary + 2, end],
    });
    if (reason !== 'resume') compaction++;
    boundary = newBoundary;
    hasRecent = true;
    recentEnd = end - 1;
    lastCount = count;
    return true;
  };

  if (position.interrupted) step(position.lastCount, 'resume');
  for (let next = nextTrigger(lastCount, windows); next <= memories.length; next += windows.recent) {
    // A step with nothing to summarize (memories deleted since) is skipped; the count still moves on.
    step(next, 'threshold');
  }
  const plan: WaterfallPlan = { steps };
  // A compaction that just ran at this very count is what `--force` asks for.
  if (input.force && steps[steps.length - 1]?.count !== memories.length) {
    if (!step(memories.length, 'forced')) {
      plan.skipped =
        memories.length <= windows.immediate
          ? `${memories.length === 1 ? 'the one memory is' : `all ${memories.length} memories are`} within the immediate window (${windows.immediate}); there is nothing older to summarize`
          : `${notYet(memories.length - Math.max(recentEnd + 1, 0))} within the immediate window (${windows.immediate})`;
    }
  }
  return plan;
}

/** Index of the newest memory of `subset` (a layer of `memories`), or `fallback` when it is empty. */
function lastIndexOf(memories: readonly Memory[], subset: readonly Memory[], fallback: number): number {
  const last = subset[subset.length - 1];
  if (!last) return fallback;
  return memories.lastIndexOf(last);
}

/** `the 3 memories not yet summarized are all`, `the memory not yet summarized is`. */
function notYet(count: number): string {
  return count === 1 ? 'the memory not yet summarized is' : `the ${count} memories not yet summarized are all`;
}
