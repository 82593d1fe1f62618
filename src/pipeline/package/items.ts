import { oneLine } from '../../text/safe-text.js';
import { eachDay } from '../../time/periods.js';
import { CALENDAR_TIERS_COARSEST_FIRST, calendarTier, FINEST_TIER, isCalendarTier } from '../../time/tiers.js';
import type { CalendarTier, Memory, Summary } from '../../vault/model.js';
import { hasPinnedBullets, isLabelOnlyBullet, isPinnedBullet } from '../../text/summary-labels.js';
import { rankOfDay, TIER_RANK } from './bands.js';
import { demoteHeadings } from '../../vault/demote-headings.js';
import type { Item, PackageInput } from './model.js';
import { lazy } from '../../util/lazy.js';

/** The package's items: choosing them (coverage), ordering them, and how each renders. */

/** Chooses, oldest first, the items that cover every day with memories exactly once. */
export function selectCoverage(input: PackageInput): Item[] {
  const { bands } = input;
  const covered = new Set<string>();
  const items: Item[] = [];
  const usable = [...input.summaries.values()].filter(
    (summary) => summary.meta.stream === input.stream && !summary.meta.review?.includes('over-budget'),
  );
  for (const tier of CALENDAR_TIERS_COARSEST_FIRST) {
    const rank = TIER_RANK[tier];
    for (const summary of usable.filter((s) => s.meta.tier === tier).sort((a, b) => (a.meta.start < b.meta.start ? -1 : 1))) {
      const days = eachDay(summary.meta.start, summary.meta.end);
      if (days.some((day) => rankOfDay(day, bands) < rank || covered.has(day))) continue;
      for (const day of days) covered.add(day);
      items.push(summaryItem(summary, input));
    }
  }
  for (const memory of input.memories) {
    if (memory.importance === 'pinned' || covered.has(memory.day) || input.leftOut?.duplicates.has(memory.id)) continue;
    const inRawBand = memory.day >= bands.rawFrom;
    // A forgotten memory leaves the full-detail band; on a day no summary covers it still stands for its day.
    if (inRawBand && input.leftOut?.ids.has(memory.id)) continue;
    items.push(memoryItem(memory, 'memory', input, inRawBand ? undefined : 'no usable summary covers this day'));
  }
  return items.sort(compareItems);
}

export function compareItems(a: Item, b: Item): number {
  if (a.start !== b.start) return a.start < b.start ? -1 : 1;
  if (a.end !== b.end) return a.end < b.end ? 1 : -1; // a coarser item before the finer ones it contains
  const am = a.memory?.minute ?? 0;
  const bm = b.memory?.minute ?? 0;
  return am !== bm ? am - bm : a.path < b.path ? -1 : 1;
}

export function summaryItem(summary: Summary, input: PackageInput): Item {
  const tier = summary.meta.tier as CalendarTier;
  return {
    type: 'summary',
    summary,
    tier,
    id: summary.meta.period,
    path: summary.path,
    start: summary.meta.start,
    end: summary.meta.end,
    status: 'included',
    // Worked out on the first call only: an item's text never depends on its status or reason, and the package is
    // rendered again after each step near the budget (~15 ms of an edit's assembly at 20,000 memories).
    render: lazy(() => {
      const parsed = input.readShown?.(summary) ?? input.readSummary(summary);
      const body = withoutPinnedBullets(demoteHeadings(parsed.body.replace(/^# [^\n]*\n+/, ''), 2, parsed));
      return `## ${sectionTitle(summary)}\n\n${body || 'Pinned memories only: see the critical section.'}`;
    }),
  };
}

/**
 * A summary's `**Pinned:**` bullets and merged pinned sections left out: the
 * critical section carries every pinned memory in full, so each appears once
 * in the package. A day label or a section heading left with nothing under it
 * goes too.
 */
export function withoutPinnedBullets(body: string): string {
  if (!PINNED_SECTION.test(body) && !hasPinnedBullets(body)) return body;
  const lines = withoutPinnedSections(body.split('\n')).filter((line) => !isPinnedBullet(line));
  const kept = lines.filter((line, i) => {
    if (!isLabelOnlyBullet(line)) return true;
    // A day label over nested bullets: kept only while a nested bullet follows.
    return /^\s{2,}[-*] /.test(lines[i + 1] ?? '');
  });
  return kept
    .join('\n')
    .replace(/^(#{2,6} [^\n]*)\n+(?=#{2,6} |$(?![\s\S]))/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * A small day's daily merges its memories whole, a pinned one as `### 09:00 Title (pinned)` over its lead sentence
 * (`mergeSources`): the section goes, as the pinned bullets do, up to the next heading of its level or above.
 */
const PINNED_SECTION = /^#{3,6} [^\n]* \(pinned\)$/m;

function withoutPinnedSections(lines: string[]): string[] {
  const kept: string[] = [];
  let skipBelow = 0; // heading level of the pinned section being skipped, 0 when none
  for (const line of lines) {
    const level = /^(#{1,6}) /.exec(line)?.[1]?.length ?? 0;
    if (skipBelow > 0 && (level === 0 || level > skipBelow)) continue;
    skipBelow = 0;
    if (level >= 3 && / \(pinned\)$/.test(line)) {
      skipBelow = level;
      continue;
    }
    kept.push(line);
  }
  return kept;
}

function sectionTitle(summary: Summary): string {
  const { tier, period, start, end } = summary.meta;
  // A waterfall summary is never a package item; read as the finest tier's, as before the tier table.
  return calendarTier(isCalendarTier(tier) ? tier : FINEST_TIER).packageTitle({ period, start, end });
}

export function memoryItem(memory: Memory, type: 'pinned' | 'memory', input: PackageInput, reason?: string): Item {
  const item: Item = {
    type,
    tier: 'raw',
    id: memory.id,
    path: memory.path,
    start: memory.day,
    end: memory.day,
    status: 'included',
    memory,
    // Worked out on the first call only: an item's text never depends on its status or reason, and the package is
    // rendered again after each step near the budget (~15 ms of an edit's assembly at 20,000 memories).
    render: lazy(() => {
      const parsed = input.readShown?.(memory) ?? input.readMemory(memory);
      // A memory whose citations went stale says so under its heading (src/citations/): the reader checks before trusting it.
      const note = input.citationNotes?.get(memory.path);
      const stale = note ? `> **Stale:** ${oneLine(note)}\n\n` : '';
      return `### ${memoryHeading(memory)}\n\n${stale}${demoteHeadings(parsed.body, 3, parsed)}`;
    }),
  };
  if (reason) item.reason = reason;
  return item;
}

export function memoryHeading(memory: Memory): string {
  const time = /T\d{2}:\d{2}/.test(memory.date)
    ? ` ${String(Math.floor(memory.minute / 60)).padStart(2, '0')}:${String(memory.minute % 60).padStart(2, '0')}`
    : '';
  // Title, kind and tags are one line each (`oneLine`): a line break in one cannot start a heading of the package.
  const tags = memory.tags.length > 0 ? ` [${memory.tags.map(oneLine).join(', ')}]` : '';
  // Without a title the day and time are the heading: the body says the rest, the file id says nothing.
  const kind = memory.kind !== 'note' && memory.kind !== 'session' ? ` (${oneLine(memory.kind)})` : '';
  return `${memory.day}${time}${memory.title ? ` ${oneLine(memory.title)}` : ''}${kind}${tags}`;
}
