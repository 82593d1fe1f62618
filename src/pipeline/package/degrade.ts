import { eachDay } from '../../time/periods.js';
import { CALENDAR_TIER_TABLE } from '../../time/tiers.js';
import type { CalendarTier, Memory, Summary } from '../../vault/model.js';
import { compareItems, memoryItem, summaryItem } from './items.js';
import type { Item, PackageInput } from './model.js';
import { leftOutPrefix, pastLeftOut } from './left-out-prefix.js';

/**
 * Trading detail for coverage when over budget (`promote`, `shortenOldestMemory`, `leaveOutOldest`, in that order)
 * and buying it back when under (`refine`). Each step changes `history` in place and says whether it did anything.
 */

/** Replaces the finer items of the oldest complete coarser period by its summary. */
export function promote(history: Item[], finer: CalendarTier, coarser: CalendarTier, input: PackageInput): boolean {
  const candidates = [...input.summaries.values()]
    .filter(
      (s) =>
        s.meta.stream === input.stream &&
        s.meta.tier === coarser &&
        !s.meta.review?.includes('over-budget') &&
        s.meta.end < input.bands.rawFrom,
    )
    .sort((a, b) => (a.meta.start < b.meta.start ? -1 : 1));
  for (const summary of candidates) {
    const inside = history.filter((item) => item.status !== 'left-out' && item.start >= summary.meta.start && item.end <= summary.meta.end);
    if (inside.length === 0 || !inside.some((item) => item.tier === finer)) continue;
    const overlapping = history.some(
      (item) => item.status !== 'left-out' && !inside.includes(item) && item.start <= summary.meta.end && item.end >= summary.meta.start,
    );
    if (overlapping) continue;
    for (const item of inside) history.splice(history.indexOf(item), 1);
    const promoted = summaryItem(summary, input);
    promoted.status = 'degraded';
    promoted.reason = `replaces ${inside.length} finer item(s) to fit the budget`;
    history.push(promoted);
    history.sort(compareItems);
    return true;
  }
  return false;
}

export function shortenOldestMemory(history: Item[], _input: PackageInput): boolean {
  return history.some((item) => shortenMemory(item));
}

/** Shortens `item` if it is a memory shown in full; says whether it did (one item of `shortenOldestMemory`). */
export function shortenMemory(item: Item): boolean {
  if (item.type !== 'memory' || item.status !== 'included') return false;
  item.status = 'degraded';
  item.reason = 'shortened to its first sentence to fit the budget';
  return true;
}

export function leaveOutOldest(history: Item[]): boolean {
  return history.some((item) => leaveOut(item));
}

/** Leaves `item` out if it is shown; says whether it did (one item of `leaveOutOldest`). */
export function leaveOut(item: Item): boolean {
  if (item.status === 'left-out') return false;
  item.status = 'left-out';
  item.reason = 'over the package budget';
  return true;
}

/** What a tier's summary breaks into when detail is bought back: the tier below it, and memories below the finest. */
const FINER: Partial<Record<CalendarTier, CalendarTier | 'raw'>> = Object.fromEntries(
  CALENDAR_TIER_TABLE.map((row) => [row.name, row.finer ?? 'raw']),
);
/** Sentences a memory keeps when its day is bought back in part (`refineInPart`): for a session, its header and first request. */
export const OPENING_SENTENCES = 3;
/** Attempts in a row that did not fit before refining stops: the room left is then smaller than anything tried. */
const MAX_MISSES_IN_A_ROW = 24;

/**
 * Buys detail back while the package fits, the newest first: the included
 * summary or shortened memory that ends last is replaced by the finer items it
 * was built from (long-term → its monthlies → their weeklies → their dailies →
 * the day's memories), so a recent day is shown in full before an old one and
 * the newest week in dailies before an old month in weeklies. Each item is
 * tried once; a replacement that does not fit is undone. A day whose memories
 * do not fit in full is bought back in part (`refineInPart`). Returns the
 * rendered package.
 */
export function refine(history: Item[], input: PackageInput, text: string, render: () => string, fits: (text: string) => boolean): string {
  const tried = new Set<Item>();
  const usable = [...input.summaries.values()].filter((s) => s.meta.stream === input.stream && !s.meta.review?.includes('over-budget'));
  const daysWithMemories = new Set(input.memories.map((memory) => memory.day));
  // Each daily tried asks for its day's memories: looked up by day, not filtered out of the whole stream each time.
  const byDay = new Map<string, Memory[]>();
  for (const memory of input.memories) {
    const list = byDay.get(memory.day);
    if (list) list.push(memory);
    else byDay.set(memory.day, [memory]);
  }
  let misses = 0;
  // Left-out items are never candidates: the run of them at the front is not walked at every step (a busy day).
  const prefix = leftOutPrefix();
  for (;;) {
    if (misses >= MAX_MISSES_IN_A_ROW) return text;
    const candidate = newestCandidate(history, tried, input.bands.dailyFrom, pastLeftOut(history, prefix));
    if (!candidate) return text;
    tried.add(candidate);
    if (candidate.type === 'memory') {
      // Shortened over budget earlier: its full text, if there is room now.
      const { reason } = candidate;
      candidate.status = 'included';
      delete candidate.reason;
      const next = render();
      if (fits(next)) {
        text = next;
        misses = 0;
        continue;
      }
      candidate.status = 'degraded';
      if (reason) candidate.reason = reason;
      misses++;
      continue;
    }
    const parts = finerParts(candidate, usable, daysWithMemories, byDay, input);
    if (!parts) continue;
    replace(history, [candidate], parts);
    const next = render();
    if (fits(next)) {
      text = next;
      misses = 0;
      continue;
    }
    // In part only with several memories: one memory's opening and itself in full is the whole day.
    const inPart = parts.length > 1 && parts[0]?.type === 'memory' ? refineInPart(parts, candidate, render, fits) : undefined;
    if (inPart !== undefined) {
      text = inPart;
      for (const part of parts) tried.add(part);
      misses = 0;
      continue;
    }
    replace(history, parts, [candidate]);
    misses++;
  }
}

/** The item whose detail is bought back next: the one ending last (the coarser one on a tie), never one tried before. */
function newestCandidate(history: readonly Item[], tried: ReadonlySet<Item>, recentFrom: string, from: number): Item | undefined {
  let best: Item | undefined;
  let bestRank = Infinity;
  for (let i = from; i < history.length; i++) {
    const item = history[i]!;
    // The status first: on a busy day nearly every item is left out, and a set lookup per item per step adds up.
    const refinable = (item.type === 'summary' && item.status !== 'left-out') || (item.type === 'memory' && item.status === 'degraded');
    if (!refinable || tried.has(item)) continue;
    const rank = refineRank(item, recentFrom);
    if (!best || rank < bestRank || (rank === bestRank && newer(item, best))) {
      best = item;
      bestRank = rank;
    }
  }
  return best;
}

/**
 * Which detail is bought back first: the days of the daily band in full (and memories shortened earlier), then
 * weeks, months and the long term split into their finer summaries (the history's breadth), then older days in
 * full; the newest first within each. A recent day is in full before an old one, and an old month is read in
 * weeks before an old day is read whole.
 */
function refineRank(item: Item, recentFrom: string): number {
  if (item.type === 'memory' || (item.tier === 'daily' && item.start >= recentFrom)) return 0;
  return item.tier === 'daily' ? 2 : 1;
}

/** Ends later; on the same end, the coarser item (it starts earlier), then the later memory of the day. */
function newer(a: Item, b: Item): boolean {
  if (a.end !== b.end) return a.end > b.end;
  if (a.start !== b.start) return a.start < b.start;
  return (a.memory?.minute ?? 0) > (b.memory?.minute ?? 0);
}

function replace(history: Item[], out: readonly Item[], into: readonly Item[]): void {
  for (const item of out) history.splice(history.indexOf(item), 1);
  history.push(...into);
  history.sort(compareItems);
}

/**
 * A day too big to show in full replaces its summary only in part: every
 * memory of the day by its opening (`OPENING_SENTENCES`: a session's header,
 * branch and first request), then as many as fit in full, the newest first.
 * Undone (undefined) unless at least one memory is shown in full: otherwise
 * the day's summary says more.
 */
function refineInPart(parts: readonly Item[], replaced: Item, render: () => string, fits: (text: string) => boolean): string | undefined {
  // `included`, not `degraded`: an opening shows more of the day than the summary it replaces; nothing the budget's band
  // promised was cut (the manifest's reason and `opening` say it is not the memory in full).
  for (const part of parts) {
    part.status = 'included';
    part.opening = OPENING_SENTENCES;
    part.reason = `opening only: the day did not fit in full (instead of ${replaced.tier} ${replaced.id}; newer memories of the day in full)`;
  }
  let text = render();
  if (!fits(text)) return undefined;
  let full = 0;
  let misses = 0;
  const newestFirst = [...parts].sort((a, b) => compareItems(b, a));
  for (const part of newestFirst) {
    if (misses >= 2) break;
    const reason = part.reason;
    part.reason = `finer than its band: the package had room for this memory in full (instead of ${replaced.tier} ${replaced.id})`;
    delete part.opening;
    const next = render();
    if (fits(next)) {
      text = next;
      full++;
      continue;
    }
    part.opening = OPENING_SENTENCES;
    if (reason) part.reason = reason;
    misses++;
  }
  return full > 0 ? text : undefined;
}

/** The finer items that cover exactly the days with memories of `item`, or undefined when one is missing. */
function finerParts(
  item: Item,
  usable: readonly Summary[],
  daysWithMemories: ReadonlySet<string>,
  byDay: ReadonlyMap<string, readonly Memory[]>,
  input: PackageInput,
): Item[] | undefined {
  const finer = FINER[item.tier as CalendarTier];
  if (!finer) return undefined;
  const reason = `finer than its band: the package had room (instead of ${item.tier} ${item.id})`;
  if (finer === 'raw') {
    // Detail bought back never brings a copy or a forgotten memory (they stay in the summary it replaces).
    // Their order does not matter: the parts are sorted into the history (`compareItems`, a total order).
    const memories = eachDay(item.start, item.end)
      .flatMap((day) => byDay.get(day) ?? [])
      .filter((memory) => !input.leftOut?.ids.has(memory.id));
    // A pinned memory is in the critical section already; its day stays with the summary that mentions it.
    if (memories.length === 0 || memories.some((memory) => memory.importance === 'pinned')) return undefined;
    return memories.map((memory) => memoryItem(memory, 'memory', input, reason));
  }
  const parts = usable
    .filter((s) => s.meta.tier === finer && s.meta.start >= item.start && s.meta.end <= item.end)
    .sort((a, b) => (a.meta.start < b.meta.start ? -1 : 1));
  const covered = new Set<string>();
  for (const part of parts)
    for (const day of eachDay(part.meta.start, part.meta.end)) {
      if (covered.has(day)) return undefined; // overlapping parts: not a partition
      covered.add(day);
    }
  for (const day of eachDay(item.start, item.end)) if (daysWithMemories.has(day) && !covered.has(day)) return undefined;
  if (parts.length === 0) return undefined;
  return parts.map((summary) => ({ ...summaryItem(summary, input), reason }));
}
