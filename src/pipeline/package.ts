import type { UploadConfig } from '../config/schema.js';
import { eachDay } from '../time/periods.js';
import { hashValue } from '../util/hash.js';
import { countBytes, countTokens, type TokenizerName } from '../util/tokens.js';
import type { ParsedContent } from '../vault/cache.js';
import type { CalendarTier, Memory, Summary } from '../vault/model.js';
import { stringifyFrontmatter } from '../vault/frontmatter.js';
import { rankOfDay, TIER_RANK, type Bands } from './bands.js';
import { demoteHeadings } from './rollup.js';
import { MemvaultError } from '../util/errors.js';

/**
 * Stage 6, assemble: the bounded UPLOAD_PACKAGE.md of one stream. A pure
 * function of the memories, the summaries, the bands (from `now`) and the
 * config; bodies come through the two readers passed in.
 *
 * Selection: critical items (pinned memories) first; then every day from the
 * first memory to today covered exactly once, by the coarsest summary whose
 * whole period lies in bands that allow its tier, else by finer tiers, else
 * by the raw memories.
 *
 * Over budget, detail is traded for coverage in this fixed order, each step
 * oldest first, until the package fits:
 *   1. dailies of a complete week → that week's summary
 *   2. weeklies of a complete month → that month's summary
 *   3. raw memories → their first sentence
 *   4. leave out the oldest items (listed in the manifest)
 * If the critical section alone is over budget the build fails and says what to unpin.
 *
 * Under budget, spare room buys detail back (`refine`): the coarsest summary
 * (long-term, then monthlies, weeklies, dailies; the newest first within a
 * tier) is replaced by the finer items it was built from, whenever they all
 * exist and the package still fits. A sparse history (sessions days or weeks
 * apart) then fills its budget with monthlies and weeklies instead of one
 * long-term summary; a steady history, whose pyramid already fills the
 * budget, stays as it is.
 */

export interface PackageInput {
  stream: string;
  /** The vault folder as the user knows it (e.g. `vault`), for the hints in an empty package. */
  vaultLabel: string;
  bands: Bands;
  memories: readonly Memory[];
  summaries: ReadonlyMap<string, Summary>;
  upload: UploadConfig;
  tokenizer: TokenizerName;
  readMemory: (memory: Memory) => ParsedContent;
  readSummary: (summary: Summary) => ParsedContent;
}

export type ItemStatus = 'included' | 'degraded' | 'left-out';

export interface ManifestItem {
  type: 'pinned' | 'summary' | 'memory';
  tier: CalendarTier | 'raw';
  /** Period of a summary, or the memory id. */
  id: string;
  path: string;
  start: string;
  end: string;
  status: ItemStatus;
  /** Why an item is degraded, left out, or raw outside the full-detail band. */
  reason?: string;
  /** Summaries only: must-keep items of its sources the summary lost (its frontmatter `dropped:`), so nothing is lost silently. */
  dropped?: string[];
}

export interface Manifest {
  memvault: 'manifest';
  stream: string;
  budget: { max_tokens: number; max_bytes: number };
  tokens: number;
  bytes: number;
  bands: Bands;
  coverage: { first_day: string | null; last_day: string; days_with_memories: number; days_covered: number };
  items: ManifestItem[];
  /** Hash of everything the package was assembled from: equal hash, equal package. */
  input_hash: string;
}

export interface AssembledPackage {
  text: string;
  manifest: Manifest;
}

/** The pinned memories alone are over the package budget; `pinned` is largest first. */
export class CriticalOverBudgetError extends MemvaultError {
  constructor(
    readonly stream: string,
    readonly tokens: number,
    readonly bytes: number,
    readonly pinned: { path: string; tokens: number }[],
  ) {
    const biggest = pinned
      .slice(0, 3)
      .map((p) => `${p.path} (${p.tokens} tokens)`)
      .join(', ');
    const reason = `the critical section of stream \`${stream}\` alone is ${tokens} tokens / ${bytes} bytes, over the package budget`;
    super('package/critical-over-budget', reason, { biggest });
    this.name = 'CriticalOverBudgetError';
  }
}

interface Item extends ManifestItem {
  /** Rendered markdown of the item (a section). */
  render: () => string;
  memory?: Memory;
  summary?: Summary;
}

/** A cheap fingerprint of the inputs, checked before paying for assembly and token counting. */
export function packageInputHash(input: Omit<PackageInput, 'readMemory' | 'readSummary'>): string {
  const summaries = [...input.summaries.values()].map((s) => [s.path, s.sha256]).sort();
  // v2: the header names zoom, search and context.
  return hashValue({
    v: 2,
    stream: input.stream,
    bands: input.bands,
    upload: input.upload,
    tokenizer: input.tokenizer,
    memories: input.memories.map((m) => [m.path, m.sha256]),
    summaries,
  });
}

/** `inputHash`: `packageInputHash(input)`, when the caller has it already (it hashes every memory). */
export function assemblePackage(input: PackageInput, inputHash = packageInputHash(input)): AssembledPackage {
  const { bands } = input;
  const pinned = input.memories.filter((memory) => memory.importance === 'pinned');
  const critical: Item[] = pinned.map((memory) => memoryItem(memory, 'pinned', input, 'pinned: always included'));
  const history = selectCoverage(input);

  const firstDay = input.memories[0]?.day ?? null;
  const daysWithMemories = new Set(input.memories.map((memory) => memory.day));
  const render = (): string => renderPackage(input, firstDay, critical, history);
  const measure = (text: string) => ({ tokens: countTokens(text, input.tokenizer), bytes: countBytes(text) });
  const fits = (text: string): boolean => {
    if (countBytes(text) > input.upload.max_bytes) return false;
    // Counting the whole package after every degradation step was most of the assembly time. A sum of
    // memoized paragraph counts is within a few tokens of the real count: a clear miss skips the exact count.
    if (estimateTokens(text) > input.upload.max_tokens * 1.02) return false;
    return countTokens(text, input.tokenizer) <= input.upload.max_tokens;
  };
  const paragraphTokens = new Map<string, number>();
  const estimateTokens = (text: string): number => {
    const paragraphs = text.split('\n\n');
    let sum = paragraphs.length - 1; // each `\n\n` is one token
    for (const paragraph of paragraphs) {
      let tokens = paragraphTokens.get(paragraph);
      if (tokens === undefined) paragraphTokens.set(paragraph, (tokens = countTokens(paragraph, input.tokenizer)));
      sum += tokens;
    }
    return sum;
  };

  const criticalOnly = renderPackage(input, firstDay, critical, []);
  if (!fits(criticalOnly)) {
    const size = measure(criticalOnly);
    const sizes = critical
      .map((item) => ({ path: item.path, tokens: countTokens(item.render(), input.tokenizer) }))
      .sort((a, b) => b.tokens - a.tokens);
    throw new CriticalOverBudgetError(input.stream, size.tokens, size.bytes, sizes);
  }

  let text = render();
  const steps = [
    () => promote(history, 'daily', 'weekly', input),
    () => promote(history, 'weekly', 'monthly', input),
    () => shortenOldestMemory(history, input),
    () => leaveOutOldest(history),
  ];
  for (const step of steps) {
    while (!fits(text) && step()) text = render();
  }
  // Spare room buys detail back; never once something had to be degraded or left out.
  if (history.every((item) => item.status === 'included')) text = refine(history, input, text, render, fits);

  const size = measure(text);
  const covered = new Set<string>();
  for (const item of history) if (item.status !== 'left-out') for (const day of eachDay(item.start, item.end)) covered.add(day);
  const manifest: Manifest = {
    memvault: 'manifest',
    stream: input.stream,
    budget: { max_tokens: input.upload.max_tokens, max_bytes: input.upload.max_bytes },
    tokens: size.tokens,
    bytes: size.bytes,
    bands,
    coverage: {
      first_day: firstDay,
      last_day: bands.today,
      days_with_memories: daysWithMemories.size,
      days_covered: [...daysWithMemories].filter((day) => covered.has(day)).length,
    },
    items: [...critical, ...history].map(({ type, tier, id, path, start, end, status, reason, summary }) => ({
      type,
      tier,
      id,
      path,
      start,
      end,
      status,
      ...(reason ? { reason } : {}),
      ...(summary?.meta.dropped?.length ? { dropped: summary.meta.dropped } : {}),
    })),
    input_hash: inputHash,
  };
  return { text, manifest };
}

/** Chooses, oldest first, the items that cover every day with memories exactly once. */
function selectCoverage(input: PackageInput): Item[] {
  const { bands } = input;
  const covered = new Set<string>();
  const items: Item[] = [];
  const usable = [...input.summaries.values()].filter(
    (summary) => summary.meta.stream === input.stream && !summary.meta.review?.includes('over-budget'),
  );
  const tiers: CalendarTier[] = ['longterm', 'monthly', 'weekly', 'daily'];
  for (const tier of tiers) {
    const rank = TIER_RANK[tier];
    for (const summary of usable.filter((s) => s.meta.tier === tier).sort((a, b) => (a.meta.start < b.meta.start ? -1 : 1))) {
      const days = eachDay(summary.meta.start, summary.meta.end);
      if (days.some((day) => rankOfDay(day, bands) < rank || covered.has(day))) continue;
      for (const day of days) covered.add(day);
      items.push(summaryItem(summary, input));
    }
  }
  for (const memory of input.memories) {
    if (memory.importance === 'pinned' || covered.has(memory.day)) continue;
    const inRawBand = memory.day >= bands.rawFrom;
    items.push(memoryItem(memory, 'memory', input, inRawBand ? undefined : 'no usable summary covers this day'));
  }
  return items.sort(compareItems);
}

function compareItems(a: Item, b: Item): number {
  if (a.start !== b.start) return a.start < b.start ? -1 : 1;
  if (a.end !== b.end) return a.end < b.end ? 1 : -1; // a coarser item before the finer ones it contains
  const am = a.memory?.minute ?? 0;
  const bm = b.memory?.minute ?? 0;
  return am !== bm ? am - bm : a.path < b.path ? -1 : 1;
}

function summaryItem(summary: Summary, input: PackageInput): Item {
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
    render: () => {
      const parsed = input.readSummary(summary);
      const body = withoutPinnedBullets(demoteHeadings(parsed.body.replace(/^# [^\n]*\n+/, ''), 2, parsed));
      return `## ${sectionTitle(summary)}\n\n${body}`;
    },
  };
}

/**
 * A summary's `**Pinned:**` bullets left out: the critical section carries
 * every pinned memory in full, so each appears once in the package. A day
 * label or a section heading left with nothing under it goes too.
 */
export function withoutPinnedBullets(body: string): string {
  if (!body.includes('**Pinned:**')) return body;
  const lines = body.split('\n').filter((line) => !/^\s*[-*] (?:\*\*[^*\n]+\*\* )?\*\*Pinned:\*\*/.test(line));
  const kept = lines.filter((line, i) => {
    if (!/^\s*[-*] \*\*[^*\n]+\*\*\s*$/.test(line)) return true;
    // A day label over nested bullets: kept only while a nested bullet follows.
    return /^\s{2,}[-*] /.test(lines[i + 1] ?? '');
  });
  return kept
    .join('\n')
    .replace(/^(#{2,6} [^\n]*)\n+(?=#{2,6} |$(?![\s\S]))/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function sectionTitle(summary: Summary): string {
  const { tier, period, start, end } = summary.meta;
  if (tier === 'longterm') return `Long-term memory (${start} to ${end})`;
  if (tier === 'monthly') return `Month ${period} (${start} to ${end})`;
  if (tier === 'weekly') return `Week ${period} (${start} to ${end})`;
  return `Day ${period}`;
}

function memoryItem(memory: Memory, type: 'pinned' | 'memory', input: PackageInput, reason?: string): Item {
  const item: Item = {
    type,
    tier: 'raw',
    id: memory.id,
    path: memory.path,
    start: memory.day,
    end: memory.day,
    status: 'included',
    memory,
    render: () => {
      const parsed = input.readMemory(memory);
      return `### ${memoryHeading(memory)}\n\n${demoteHeadings(parsed.body, 3, parsed)}`;
    },
  };
  if (reason) item.reason = reason;
  return item;
}

function memoryHeading(memory: Memory): string {
  const time = /T\d{2}:\d{2}/.test(memory.date)
    ? ` ${String(Math.floor(memory.minute / 60)).padStart(2, '0')}:${String(memory.minute % 60).padStart(2, '0')}`
    : '';
  const tags = memory.tags.length > 0 ? ` [${memory.tags.join(', ')}]` : '';
  // Without a title the day and time are the heading: the body says the rest, the file id says nothing.
  return `${memory.day}${time}${memory.title ? ` ${memory.title}` : ''}${memory.kind !== 'note' && memory.kind !== 'session' ? ` (${memory.kind})` : ''}${tags}`;
}

function renderPackage(input: PackageInput, firstDay: string | null, critical: readonly Item[], history: readonly Item[]): string {
  const { stream, bands } = input;
  const front = { memvault: 'package', stream, covers: firstDay ? `${firstDay} to ${bands.today}` : 'nothing yet' };
  const parts: string[] = [`# Memory of ${stream}`];
  if (!firstDay) {
    parts.push(
      `No memories yet. Add one with \`memvault add "what happened" --stream ${stream}\`, or write a markdown file with a \`date:\` in its frontmatter under \`${input.vaultLabel}/${stream}/memories/\`, then run \`memvault build\`.`,
    );
    return stringifyFrontmatter(front, `${parts.join('\n\n')}\n`);
  }
  parts.push(
    `Memories of stream \`${stream}\` from ${firstDay} to ${bands.today}: critical items first, then history from oldest (most condensed) to newest (full detail). Each day appears once. Ask for more: \`memvault zoom 2026-W07\` (the full memories of a day, week, month or range), \`memvault search "words"\` (ranked hits with path:line), \`memvault context --query "…"\` (a context within a token budget).`,
  );
  if (critical.length > 0) parts.push(`## Critical (pinned)\n\n${critical.map((item) => item.render()).join('\n\n')}`);
  let recentHeaderDone = false;
  for (const item of history) {
    if (item.status === 'left-out') continue;
    if (item.type === 'memory') {
      if (!recentHeaderDone) {
        parts.push('## Memories in full detail');
        recentHeaderDone = true;
      }
      parts.push(item.status === 'degraded' ? shortened(item, input) : item.render());
    } else {
      recentHeaderDone = false;
      parts.push(item.render());
    }
  }
  const leftOut = history.filter((item) => item.status === 'left-out');
  if (leftOut.length > 0) {
    parts.push(
      `## Left out\n\n${leftOut.length} older item(s) did not fit the budget (${leftOut[0]!.start} to ${leftOut[leftOut.length - 1]!.end}); see UPLOAD_PACKAGE.manifest.json and \`memvault zoom\`.`,
    );
  }
  return stringifyFrontmatter(front, `${parts.join('\n\n')}\n`);
}

function shortened(item: Item, input: PackageInput): string {
  const memory = item.memory!;
  const first = input.readMemory(memory).sentences.find((sentence) => sentence.role !== 'heading')?.text ?? '';
  return `### ${memoryHeading(memory)}\n\n${first} (shortened to fit the budget)`;
}

/** Replaces the finer items of the oldest complete coarser period by its summary. */
function promote(history: Item[], finer: CalendarTier, coarser: CalendarTier, input: PackageInput): boolean {
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

function shortenOldestMemory(history: Item[], _input: PackageInput): boolean {
  const item = history.find((candidate) => candidate.type === 'memory' && candidate.status === 'included');
  if (!item) return false;
  item.status = 'degraded';
  item.reason = 'shortened to its first sentence to fit the budget';
  return true;
}

function leaveOutOldest(history: Item[]): boolean {
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
function refine(history: Item[], input: PackageInput, text: string, render: () => string, fits: (text: string) => boolean): string {
  const tried = new Set<Item>();
  const usable = [...input.summaries.values()].filter((s) => s.meta.stream === input.stream && !s.meta.review?.includes('over-budget'));
  const daysWithMemories = new Set(input.memories.map((memory) => memory.day));
  for (;;) {
    const candidate = REFINE_ORDER.flatMap((tier) =>
      history
        .filter((item) => item.type === 'summary' && item.tier === tier && !tried.has(item))
        .sort((a, b) => (a.start < b.start ? 1 : -1)),
    )[0];
    if (!candidate) return text;
    tried.add(candidate);
    const parts = finerParts(candidate, usable, daysWithMemories, input);
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
  input: PackageInput,
): Item[] | undefined {
  const finer = FINER[item.tier as CalendarTier];
  if (!finer) return undefined;
  const reason = `finer than its band: the package had room (instead of ${item.tier} ${item.id})`;
  if (finer === 'raw') {
    const memories = input.memories.filter((memory) => memory.day >= item.start && memory.day <= item.end);
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
