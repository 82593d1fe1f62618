import { eachDay } from '../../time/periods.js';
import type { CalendarTier, Memory, Summary } from '../../vault/model.js';
import { compareItems, memoryItem, summaryItem } from './items.js';
import type { Item, PackageInput } from './model.js';

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
  const item = history.find((candidate) => candidate.type === 'memory' && candidate.status === 'included');
  if (!item) return false;
  item.status = 'degraded';
  item.reason = 'shortened to its first sentence to fit the budget';
  return true;
}

export function leaveOutOldest(history: Item[]): boolean {
  const item = history.find((candidate) => candidate.status !== 'left-out');
  if (!item) return false;
  item.status = 'left-out';
  item.reason = 'over the package budget';
  return true;
}

const FINER: Partial<Record<CalendarTier, CalendarTier | 'raw'>> = {
  longterm: 'monthly',
  monthly: 'weekly',
  weekly: 'daily',
  daily: 'raw',
};
const REFINE_ORDER: readonly CalendarTier[] = ['longterm', 'monthly', 'weekly', 'daily'];

/**
 * Replaces, while the package fits, the coarsest included summary by the
 * finer items it was built from (long-term → its monthlies → their weeklies →
 * their dailies → the day's memories), the newest first within a tier. Each
 * summary is tried once; a replacement that does not fit is undone. Returns
 * the rendered package.
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
  for (;;) {
    const candidate = REFINE_ORDER.flatMap((tier) =>
      history
        .filter((item) => item.type === 'summary' && item.tier === tier && !tried.has(item))
        .sort((a, b) => (a.start < b.start ? 1 : -1)),
    )[0];
    if (!candidate) return text;
    tried.add(candidate);
    const parts = finerParts(candidate, usable, daysWithMemories, byDay, input);
    if (!parts) continue;
    const at = history.indexOf(candidate);
    history.splice(at, 1, ...parts);
    history.sort(compareItems);
    const next = render();
    if (fits(next)) {
      text = next;
      continue;
    }
    for (const part of parts) history.splice(history.indexOf(part), 1);
    history.push(candidate);
    history.sort(compareItems);
  }
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
