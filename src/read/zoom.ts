import type { MemoryCitations } from '../vault/citation-model.js';
import { type CitationLookup, citationLookup } from '../citations/read.js';
import { citationLine, checkedWhen } from '../citations/line.js';
import { staleNote } from '../citations/state.js';
import { dailySourcesByDay } from '../maintain/duplicate-marks.js';
import { oneLine } from '../text/safe-text.js';
import { ALL_TIERS, type PeriodTier } from '../time/tiers.js';
import type { Memory, SourceRef, StreamState, Summary } from '../vault/model.js';
import { listedSources } from '../vault/summary-file.js';
import type { PeriodQuery } from './period-query.js';
import { memoryBody, summaryBody, tokensOf, type ReadVault } from './vault.js';

/**
 * Zoom: the full detail behind a period. Memories of the period from
 * `memories/` and `archive/` alike in time order, each with the summaries
 * built from it, and the summaries that cover the period with the memories
 * of this zoom they were built from (provenance both ways). A budget splits
 * the result into pages; page K is what `--page K` shows.
 */

export interface ZoomMemory {
  /** 1-based number of the memory in its stream (memory order: date, then path); what `--memories` selects. */
  number: number;
  id: string;
  path: string;
  location: 'memories' | 'archive';
  date: string;
  day: string;
  title: string | null;
  kind: string;
  tags: string[];
  importance: string;
  body: string;
  /** Tokens of the rendered block (see `renderZoomMemory`), counted with the configured tokenizer. */
  tokens: number;
  /** Daily summaries whose `sources` name this memory. */
  summarized_in: string[];
  /** The memory this one repeats (frontmatter `duplicate_of`): left out of summaries, the package and contexts. */
  duplicate_of?: string;
  /** What the memory cites and how it stood at the last check (src/citations/); absent when it cites nothing. */
  citations?: MemoryCitations;
}

export interface ZoomSummary {
  tier: string;
  period: string;
  path: string;
  start: string;
  end: string;
  tokens: number;
  /** Ids of the memories of this zoom the summary was built from (dailies), or its source summaries (weeklies and up). */
  sources: string[];
  /** Set when `--tier` asked for summaries: the body, and its rendered tokens. */
  body?: string;
}

export interface ZoomPage {
  page: number;
  pages: number;
  budget: number | null;
  /** Tokens of the items on this page. */
  tokens: number;
  /** Items (memories or summaries) and tokens on later pages. */
  items_left: number;
  tokens_left: number;
}

export interface ZoomResult {
  stream: string;
  period: PeriodQuery | null;
  memory_range: { from: number; to: number } | null;
  /** What the items are: memories, or the summaries of one tier (`--tier`). */
  showing: 'memories' | PeriodTier;
  /** Items of the page shown. */
  memories: ZoomMemory[];
  summaries: ZoomSummary[];
  /** Summaries covering the period (provenance), whatever is shown. */
  covering: ZoomSummary[];
  total: { items: number; tokens: number };
  page: ZoomPage;
  /** One item larger than the whole budget is cut to fit; its path is named here. */
  truncated: string | null;
}

export interface ZoomOptions {
  stream: StreamState;
  period?: PeriodQuery;
  /** 1-based memory numbers (waterfall streams are zoomed by count). */
  memoryRange?: { from: number; to: number };
  budget?: number;
  page?: number;
  tier?: PeriodTier;
}

/** Builds the zoom of a period (or a memory range) of one stream. */
export function zoom(vault: ReadVault, options: ZoomOptions): ZoomResult {
  const { stream, period } = options;
  const numbered = stream.memories.map((memory, i) => ({ memory, number: i + 1 }));
  const selected = numbered.filter(({ memory, number }) => {
    if (period && (memory.day < period.start || memory.day > period.end)) return false;
    if (options.memoryRange && (number < options.memoryRange.from || number > options.memoryRange.to)) return false;
    return true;
  });
  const summaries = [...stream.summaries.values()].sort(
    (a, b) => tierRank(a) - tierRank(b) || (a.meta.start < b.meta.start ? -1 : a.meta.start > b.meta.start ? 1 : 0),
  );
  const start = period?.start ?? selected[0]?.memory.day;
  const end = period?.end ?? selected[selected.length - 1]?.memory.day;
  const covering = start && end ? summaries.filter((s) => s.meta.tier !== 'longterm' && s.meta.start <= end && s.meta.end >= start) : [];
  // A very busy day's daily holds its sources' count and hash, not the list: the day's memories, if they hash to it.
  let byDay: Map<string, SourceRef[]> | undefined;
  const sourcesOf = (summary: Summary): readonly SourceRef[] =>
    listedSources(summary.meta, () => (byDay ??= dailySourcesByDay(stream.memories)).get(summary.meta.period)) ?? [];
  const inDaily = new Map<string, string[]>();
  for (const summary of summaries) {
    if (summary.meta.tier !== 'daily') continue;
    for (const source of sourcesOf(summary)) inDaily.set(source.id, [...(inDaily.get(source.id) ?? []), summary.path]);
  }
  const zoomIds = new Set(selected.map(({ memory }) => memory.id));
  const describe = (summary: Summary, withBody: boolean): ZoomSummary => {
    const sources = sourcesOf(summary)
      .map((source) => source.id)
      .filter((id) => summary.meta.tier !== 'daily' || zoomIds.has(id));
    const base: ZoomSummary = {
      tier: summary.meta.tier,
      period: summary.meta.period,
      path: summary.path,
      start: summary.meta.start,
      end: summary.meta.end,
      tokens: summary.meta.tokens,
      sources,
    };
    if (!withBody) return base;
    const body = summaryBody(vault, summary);
    return { ...base, body, tokens: tokensOf(vault, renderZoomSummary({ ...base, body })) };
  };

  const showing = options.tier ?? 'memories';
  const citations = citationLookup(vault.root);
  const items: (ZoomMemory | ZoomSummary)[] =
    showing === 'memories'
      ? selected.map(({ memory, number }) => toZoomMemory(vault, memory, number, inDaily.get(memory.id) ?? [], citations))
      : covering.filter((s) => s.meta.tier === showing).map((s) => describe(s, true));
  const { page, pageItems, truncated } = paginate(vault, items, options.budget, options.page ?? 1);
  return {
    stream: stream.name,
    period: period ?? null,
    memory_range: options.memoryRange ?? null,
    showing,
    memories: showing === 'memories' ? (pageItems as ZoomMemory[]) : [],
    summaries: showing === 'memories' ? [] : (pageItems as ZoomSummary[]),
    covering: covering.map((s) => describe(s, false)),
    total: { items: items.length, tokens: items.reduce((sum, item) => sum + item.tokens, 0) },
    page,
    truncated,
  };
}

function toZoomMemory(
  vault: ReadVault,
  memory: Memory,
  number: number,
  summarizedIn: string[],
  citations: CitationLookup | undefined,
): ZoomMemory {
  const cited = citations?.get(memory.path);
  const item: ZoomMemory = {
    number,
    id: memory.id,
    path: memory.path,
    location: memory.location,
    date: memory.date,
    day: memory.day,
    title: memory.title ?? null,
    kind: memory.kind,
    tags: memory.tags,
    importance: memory.importance,
    body: memoryBody(vault, memory),
    tokens: 0,
    summarized_in: summarizedIn,
    ...(memory.duplicateOf !== undefined ? { duplicate_of: memory.duplicateOf } : {}),
    ...(cited ? { citations: cited } : {}),
  };
  item.tokens = tokensOf(vault, renderZoomMemory(item));
  return item;
}

/**
 * Splits items into pages of at most `budget` tokens each, in order, and
 * returns page `page`. Without a budget everything is one page. An item
 * larger than the budget on its own gets a page to itself, cut to fit.
 */
function paginate<T extends { tokens: number; body?: string; path: string }>(
  vault: ReadVault,
  items: T[],
  budget: number | undefined,
  page: number,
): { page: ZoomPage; pageItems: T[]; truncated: string | null } {
  const pages: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const item of items) {
    if (budget !== undefined && current.length > 0 && used + item.tokens > budget) {
      pages.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += item.tokens;
  }
  if (current.length > 0) pages.push(current);
  const index = Math.min(Math.max(page, 1), Math.max(pages.length, 1)) - 1;
  let pageItems = pages[index] ?? [];
  let truncated: string | null = null;
  if (budget !== undefined && pageItems.length === 1 && pageItems[0]!.tokens > budget) {
    const only = pageItems[0]!;
    truncated = only.path;
    pageItems = [cutToBudget(vault, only, budget)];
  }
  const later = pages.slice(index + 1).flat();
  return {
    page: {
      page: index + 1,
      pages: Math.max(pages.length, 1),
      budget: budget ?? null,
      tokens: pageItems.reduce((sum, item) => sum + item.tokens, 0),
      items_left: later.length,
      tokens_left: later.reduce((sum, item) => sum + item.tokens, 0),
    },
    pageItems,
    truncated,
  };
}

/** Cuts an item's body by lines (then characters) until its rendered block fits `budget` tokens. */
function cutToBudget<T extends { tokens: number; body?: string }>(vault: ReadVault, item: T, budget: number): T {
  const render = (body: string): number =>
    tokensOf(
      vault,
      'body' in item && 'number' in item
        ? renderZoomMemory({ ...(item as unknown as ZoomMemory), body })
        : renderZoomSummary({ ...(item as unknown as ZoomSummary), body }),
    );
  let body = item.body ?? '';
  const marker = '\n[… cut to fit --budget; see the file]';
  // Halve until it fits, then grow back line by line: a few dozen counts even for a huge memory.
  let keep = body.length;
  while (keep > 0 && render(body.slice(0, keep) + marker) > budget) keep = Math.floor(keep / 2);
  body = body.slice(0, keep) + marker;
  return { ...item, body, tokens: render(body) };
}

/** The text block of one memory in a zoom: a heading with number, time, id and path, then the body. */
export function renderZoomMemory(
  memory: Pick<
    ZoomMemory,
    'number' | 'date' | 'title' | 'id' | 'path' | 'kind' | 'tags' | 'importance' | 'body' | 'location' | 'duplicate_of'
  > &
    Pick<Partial<ZoomMemory>, 'citations'>,
): string {
  const facts = [
    `id \`${memory.id}\``,
    `\`${memory.path}\``,
    oneLine(memory.kind),
    ...(memory.tags.length > 0 ? [`tags: ${memory.tags.map(oneLine).join(', ')}`] : []),
    ...(memory.importance !== 'normal' ? [memory.importance] : []),
    ...(memory.location === 'archive' ? ['archived'] : []),
    ...(memory.duplicate_of !== undefined ? [`duplicate of \`${memory.duplicate_of}\``] : []),
    // How its citations stood when last checked (src/citations/); a stale one also says so before its body.
    ...(memory.citations
      ? [memory.citations.stale ? `citations checked at ${checkedWhen(memory.citations)}` : citationLine(memory.citations)]
      : []),
  ];
  // Title, kind and tags stay on their lines (`oneLine`): a line break in a title cannot forge a memory's heading.
  // A stale memory says so before its body (src/citations/).
  const note = memory.citations?.stale ? staleNote(memory.citations) : undefined;
  const stale = note ? `> **Stale:** ${oneLine(note)}\n\n` : '';
  return `### #${memory.number} ${memory.date}${memory.title ? ` — ${oneLine(memory.title)}` : ''}\n${facts.join(' · ')}\n\n${stale}${memory.body}\n`;
}

/** The text block of one summary in a zoom (`--tier`). */
export function renderZoomSummary(summary: Pick<ZoomSummary, 'tier' | 'period' | 'path' | 'start' | 'end' | 'sources' | 'body'>): string {
  const head = `### ${summary.tier} ${summary.period} (${summary.start} to ${summary.end})`;
  return `${head}\n\`${summary.path}\` · built from ${summary.sources.length} source(s)\n\n${summary.body ?? ''}\n`;
}

function tierRank(summary: Summary): number {
  return ALL_TIERS.indexOf(summary.meta.tier);
}
