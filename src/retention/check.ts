import { contentWords as wordsOf } from '../text/terms.js';
import { CappedMemo } from '../util/memo.js';
import type { Sentence, SummaryMeta } from '../vault/model.js';
import {
  canonicalDate,
  datesOf,
  itemsOfSentence,
  KIND_ORDER,
  sharedItemsOfSentence,
  normalizeForMatch,
  orderItems,
  SENTENCE_KINDS,
  type MustKeepItem,
} from './items.js';

/**
 * The retention check: which must-keep items of a summary's sources survive
 * into its output. Runs after every rollup, whatever the provider; the caller
 * names the missing items in the retry and records what is still missing as
 * `dropped:` in the summary's frontmatter.
 *
 * Matching, on normalised text (see `normalizeForMatch`):
 * - identifiers, issue refs, numbers, names: the item as a whole word sequence
 *   (`Mel` is not kept by `Melanie`; `30-day` and `30 day` are one);
 * - dates: the same text, or any date of the output naming the same day,
 *   month or year (`7 May 2023` is kept by `2023-05-07`);
 * - pinned, critical and decision sentences: at least `SENTENCE_SHARE` of
 *   their content words, all of their numbers, on one line of the output, since a summary may
 *   shorten the sentence around them (but two similar decisions on two lines
 *   do not make up a third).
 */

/** Share of a sentence item's content words the output must contain for the item to count as kept. */
export const SENTENCE_SHARE = 0.75;

/** How many missing items a retry names at most (in priority order): a prompt listing hundreds of names helps nobody. */
export const MAX_NAMED_MISSING = 40;

export interface RetentionResult {
  /** Every must-keep item of the sources, in priority order. */
  items: MustKeepItem[];
  kept: MustKeepItem[];
  /** Items the output lost, in priority order. */
  missing: MustKeepItem[];
}

/** What an output offers to the matcher, computed once per output. */
export interface OutputIndex {
  text: string;
  /** Content words of each line (a bullet, a paragraph line): a sentence item must be found mostly on one line. */
  lines: ReadonlySet<string>[];
  dates: Set<string>;
}

/** Prepares `output` for many `isKept` checks. */
export function indexOutput(output: string): OutputIndex {
  const text = ` ${spaceNumbers(normalizeForMatch(output))} `;
  const dates = new Set<string>();
  for (const date of datesOf(output)) {
    const canonical = canonicalDate(date);
    if (canonical) dates.add(canonical);
  }
  const lines = output
    .split(/\n+/)
    .map((line) => wordsOfLine.get(line, () => new Set(contentWords(spaceNumbers(normalizeForMatch(line))))))
    .filter((words) => words.size > 0);
  return { text, lines, dates };
}

/**
 * Content words by output line: a rollup's attempts write most of the same
 * lines, each checked after its attempt. Bounded (it starts over when full);
 * the sets are only read.
 */
const wordsOfLine = new CappedMemo<string, ReadonlySet<string>>(5000);

/** What an item is matched by. */
interface ItemNeedle {
  kind: MustKeepItem['kind'];
  /** Sentence kinds: the distinct content words, and those of them that are numbers. */
  words: string[];
  numbers: string[];
  /** Other kinds: the normalised text, and for a date the day, month or year it names. */
  text: string;
  date: string | undefined;
}

function needleOf(item: MustKeepItem): ItemNeedle {
  const normalized = spaceNumbers(normalizeForMatch(item.text));
  if (SENTENCE_KINDS.has(item.kind)) {
    const words = [...new Set(contentWords(normalized))];
    return { kind: item.kind, words, numbers: words.filter((word) => /\d/.test(word)), text: normalized, date: undefined };
  }
  return { kind: item.kind, words: [], numbers: [], text: normalized, date: item.kind === 'date' ? canonicalDate(item.text) : undefined };
}

/** Needles by items list: a rollup checks its sources' items after every attempt, with the same (unchanged) list. */
const needleLists = new WeakMap<readonly MustKeepItem[], ItemNeedle[]>();

/** Whether `item` survives in the indexed output. */
export function isKept(item: MustKeepItem, output: OutputIndex): boolean {
  return keeps(output, needleOf(item));
}

function keeps(output: OutputIndex, needle: ItemNeedle): boolean {
  if (SENTENCE_KINDS.has(needle.kind)) {
    const { words, numbers } = needle;
    if (words.length === 0) return true;
    // Its numbers are not optional: "3 shards" does not keep "2 shards".
    return output.lines.some(
      (line) => numbers.every((word) => line.has(word)) && words.filter((word) => line.has(word)).length / words.length >= SENTENCE_SHARE,
    );
  }
  if (needle.text.length === 0) return true;
  if (containsWords(output.text, needle.text)) return true;
  return needle.date !== undefined && output.dates.has(needle.date);
}

/** Checks `items` against `output`. */
export function checkRetention(items: readonly MustKeepItem[], output: string): RetentionResult {
  const index = indexOutput(output);
  let needles = needleLists.get(items);
  if (!needles || needles.length !== items.length) needleLists.set(items, (needles = items.map(needleOf)));
  const kept: MustKeepItem[] = [];
  const missing: MustKeepItem[] = [];
  items.forEach((item, i) => (keeps(index, needles[i]!) ? kept : missing).push(item));
  return { items: [...items], kept, missing };
}

/**
 * Every must-keep item of a summary's sources, deduplicated, in priority
 * order. A pinned memory contributes its lead sentence only: the package's
 * critical section carries the whole memory, so summaries need only mention it.
 */
export function collectMustKeep(sources: readonly { importance?: string; sentences: readonly Sentence[] }[]): MustKeepItem[] {
  // Ordered once over all sources: ordering each source's items first (mustKeepOfSentences) gives the same list, since
  // the order is stable by kind and a duplicate keeps its first place either way, at twice the cost (a key per item).
  const items: MustKeepItem[] = [];
  for (const source of sources) {
    if (source.importance !== 'pinned') {
      for (const sentence of source.sentences)
        if (sentence.role !== 'heading') for (const item of sharedItemsOfSentence(sentence)) items.push(item);
      continue;
    }
    const lead = source.sentences.find((sentence) => sentence.role !== 'heading');
    if (lead)
      items.push(
        ...itemsOfSentence({ ...lead, mustKeep: lead.mustKeep.includes('pinned') ? lead.mustKeep : ['pinned', ...lead.mustKeep] }),
      );
  }
  return orderItems(items);
}

/** How a dropped item is written in frontmatter and the manifest: its text, sentence items cut to 120 characters. */
export function droppedText(item: MustKeepItem): string {
  const text = item.text.replace(/\s+/g, ' ').trim();
  return text.length > 120 ? `${text.slice(0, 119).trimEnd()}…` : text;
}

/** Compares two outcomes: the one that lost fewer high-priority items is better (negative when `a` is better). */
export function compareMissing(a: readonly MustKeepItem[], b: readonly MustKeepItem[]): number {
  for (const kind of KIND_ORDER) {
    const diff = a.filter((item) => item.kind === kind).length - b.filter((item) => item.kind === kind).length;
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The retention check's content words (`contentWords(text, 'retention')` of src/text/terms.ts). */
function contentWords(text: string): string[] {
  return wordsOf(text, 'retention');
}

/** `30-day` and `30 day`, `12GB` and `12 gb`: one spelling for number–unit pairs. */
function spaceNumbers(text: string): string {
  return text.replace(/(\d)(?:-|\s)?(?=\p{L})/gu, '$1 ');
}

function containsWords(haystack: string, needle: string): boolean {
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) return false;
    const before = haystack[at - 1] ?? ' ';
    const after = haystack[at + needle.length] ?? ' ';
    const wordy = (ch: string): boolean => /[\p{L}\p{N}]/u.test(ch);
    if (!(wordy(needle[0]!) && wordy(before)) && !(wordy(needle[needle.length - 1]!) && wordy(after))) return true;
    from = at + 1;
  }
}

/**
 * The most dropped items a summary's frontmatter names. A long-term summary of
 * years can lose thousands (1,565 at 20,000 memories, 77 KB of frontmatter,
 * over the loader's 64 KB limit: the summary could not be read back). The
 * rest are counted in `dropped_total`.
 */
export const MAX_DROPPED_LISTED = 100;

export function droppedFields(dropped: readonly MustKeepItem[]): Pick<SummaryMeta, 'dropped' | 'dropped_total'> {
  const texts = [...new Set(dropped.map(droppedText))];
  if (texts.length === 0) return {};
  if (texts.length <= MAX_DROPPED_LISTED) return { dropped: texts };
  return { dropped: texts.slice(0, MAX_DROPPED_LISTED), dropped_total: texts.length };
}
