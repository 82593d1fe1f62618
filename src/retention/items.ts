import type { Root } from 'mdast';
import type { Sentence } from '../vault/model.js';
import { extractSentences } from '../vault/sentences.js';
import { hasPinnedLabel, stripDayLabel } from '../text/summary-labels.js';
import { CappedMemo } from '../util/memo.js';

/**
 * Must-keep items: the short things a summary must not lose silently. They
 * are read from the sentences the parser cut out of a source's mdast (inline
 * code stays in backticks, headings become each sentence's section, the
 * decision role and the pinned lead are already marked), so one walk of the
 * tree serves both the summarizer and the retention check.
 *
 * Kinds, most important first:
 *   pinned    the lead sentence of a pinned memory (the package carries the whole memory)
 *   critical  a line tagged `#critical`
 *   decision  a "Decision:" line, or an item under a Decisions heading
 *   code      an identifier in a code span (`ADR-012`, `roundHalfAway()`), a commit hash
 *   issue     an issue or pull-request reference (#412, GH-12, owner/repo#7)
 *   date      an absolute date (2026-02-13, 7 May 2023, May 2023, a year)
 *   number    a number with a unit (30-day, 2.3 s, $400, 12 GB, 4 years)
 *   name      a proper name (Postgres, Amy Ellis Nutt, "Charlotte's Web")
 */

export type MustKeepKind = 'pinned' | 'critical' | 'decision' | 'code' | 'issue' | 'date' | 'number' | 'name';

/** One must-keep item: its kind and its text as written in the source. */
export interface MustKeepItem {
  kind: MustKeepKind;
  text: string;
}

/** Kinds in priority order: a retry names missing items in this order, and what cannot fit is dropped from the end. */
export const KIND_ORDER: readonly MustKeepKind[] = ['pinned', 'critical', 'decision', 'code', 'issue', 'date', 'number', 'name'];

/** Sentence-long kinds: checked by their words, since a summary may shorten the sentence around them. */
export const SENTENCE_KINDS: ReadonlySet<MustKeepKind> = new Set(['pinned', 'critical', 'decision']);

/**
 * Must-keep items of a markdown tree, deduplicated, in priority order.
 *
 * @example
 * extractMustKeep(parseMarkdown('Decision: use `ADR-012` from 8 May 2023.'), { pinned: false })
 * // [{ kind: 'decision', text: 'use `ADR-012` from 8 May 2023.' }, { kind: 'code', text: 'ADR-012' }, { kind: 'date', text: '8 May 2023' }]
 */
export function extractMustKeep(tree: Root, options: { pinned: boolean }): MustKeepItem[] {
  return mustKeepOfSentences(extractSentences(tree, options));
}

/** Must-keep items of already extracted sentences (a source's cached sentences), deduplicated, in priority order. */
export function mustKeepOfSentences(sentences: readonly Sentence[]): MustKeepItem[] {
  const items: MustKeepItem[] = [];
  for (const sentence of sentences) if (sentence.role !== 'heading') items.push(...itemsOfSentence(sentence));
  return orderItems(items);
}

/** Deduplicates (by kind and normalised text) and sorts by kind priority, keeping first-seen order within a kind. */
export function orderItems(items: readonly MustKeepItem[]): MustKeepItem[] {
  const seen = new Set<string>();
  const unique: MustKeepItem[] = [];
  for (const item of items) {
    const key = itemKey(item);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(item);
  }
  // By kind priority, first-seen order within a kind: a stable sort, done as one bucket per kind.
  const byKind = KIND_ORDER.map((): MustKeepItem[] => []);
  for (const item of unique) byKind[KIND_ORDER.indexOf(item.kind)]!.push(item);
  return byKind.flat();
}

/** Identity of an item: its kind and normalised text. */
export function itemKey(item: MustKeepItem): string {
  return `${item.kind}:${normalizeForMatch(item.text)}`;
}

/**
 * Text as the retention check compares it: NFKC, lower case, typographic
 * quotes and dashes folded, markdown emphasis, code ticks and escapes removed,
 * whitespace collapsed.
 */
export function normalizeForMatch(text: string): string {
  return normalized.get(text, () => normalizeUncached(text));
}

// The same sentences and items are checked again on every attempt and at every tier above:
// memoised, they cost a map lookup (a cold 4,000-memory build spent a third of its time here).
const MEMO_MAX = 200_000;
const normalized = new CappedMemo<string, string>(MEMO_MAX);
const sentenceItems = new CappedMemo<string, readonly MustKeepItem[]>(MEMO_MAX);

/**
 * Forgets the memoised texts and items. A build thread calls it before each
 * rollup (pipeline/workers/build-worker.ts): a rollup's hits are within its
 * own attempts, and 200,000 remembered sentences kept every thread's heap
 * ~40 MB larger for the whole build (issue 29).
 */
export function forgetSentenceMemos(): void {
  normalized.clear();
  sentenceItems.clear();
}

/** Printable ASCII: NFKC leaves it as it is, and none of the typographic folds apply. */
const PRINTABLE_ASCII = /^[ -~]*$/;

function normalizeUncached(text: string): string {
  return PRINTABLE_ASCII.test(text) ? normalizeAscii(text) : foldForMatch(text);
}

/** `normalizeForMatch` of any text, without the memo or the printable-ASCII shortcut (exported for the test that compares them). */
export function foldForMatch(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’`´]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[‐‑‒–—]/g, '-')
    .replace(/\\([\\[\]()*_#`>-])/g, '$1')
    .replace(/[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}/g, '')
    .replace(/'/g, (quote, offset: number, whole: string) =>
      /\p{L}/u.test(whole[offset - 1] ?? '') && /\p{L}/u.test(whole[offset + 1] ?? '') ? quote : ' ',
    )
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * `normalizeUncached` of printable ASCII, each step run only when its
 * character is there: most item texts and many sentences need none but the
 * lower-casing (the retention check normalises every item and output line).
 */
function normalizeAscii(text: string): string {
  let out = text.toLowerCase();
  if (out.includes('`')) out = out.replace(/`/g, "'");
  if (out.includes('\\')) out = out.replace(/\\([\\[\]()*_#`>-])/g, '$1');
  if (out.includes('*') || out.includes('_')) out = out.replace(/[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}/g, '');
  if (out.includes("'"))
    out = out.replace(/'/g, (quote, offset: number, whole: string) =>
      /\p{L}/u.test(whole[offset - 1] ?? '') && /\p{L}/u.test(whole[offset + 1] ?? '') ? quote : ' ',
    );
  if (out.includes('  ')) out = out.replace(/ +/g, ' ');
  return out.trim();
}

// ---------------------------------------------------------------------------
// Per sentence

/** Each pattern below that finds codes, issue refs, dates or quantities needs one of these. */
const DIGIT = /[0-9]/;
const LABEL_PREFIX = /^(?:Pinned|Decision|Decisions):\s*/i;
const CRITICAL_TAG = /\s*#critical\b/gi;
const CODE_SPAN = /`([^`]+)`/g;
const COMMIT = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;
const VERSION = /(?<![\w.])v\d+(?:\.\d+){1,3}\b/g;
const ISSUE = /(?<![\w&/#])(?:[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)?#\d{1,6}\b|\b(?:GH|PR)-\d+\b/g;

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DATE_PATTERNS: RegExp[] = [
  /\b\d{4}-\d{2}-\d{2}\b/g,
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)? ${MONTH}\\.?,? \\d{4}\\b`, 'gi'),
  new RegExp(`\\b${MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}\\b`, 'gi'),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)? ${MONTH}\\b(?![ ,.]*\\d)`, 'gi'),
  new RegExp(`\\b${MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?\\b(?![,:]? ?\\d)`, 'gi'),
  new RegExp(`\\b${MONTH},? \\d{4}\\b`, 'gi'),
  /\b(?:19|20)\d{2}\b(?![-/.:]\d|\s?(?:%|ms|s|gb|mb|kb|px|tokens?|users?|rows?|lines?|words?)\b)/gi,
];

/** Every spelling `MONTH` accepts starts with one of these. */
const MONTH_START = /jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec/i;
const NAMES_A_MONTH: ReadonlySet<RegExp> = new Set(DATE_PATTERNS.filter((pattern) => pattern.source.includes(MONTH)));

const UNIT =
  '(?:%|percent|ms|milliseconds?|s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|yrs?' +
  '|decades?|kb|mb|gb|tb|k|m|x|tokens?|users?|customers?|requests?|req/s|rps|qps|lines?|files?|tests?|px|bytes?|calls?' +
  '|errors?|rows?|items?|times?|people|members?|kids?|children|miles?|km|kilometers?|meters?|m|kg|lbs?|pounds?|dollars?' +
  '|euros?|books?|pages?|points?)';
const NUMBER_WITH_UNIT = new RegExp(`(?:[$€£]\\s?\\d[\\d,.]*\\d?(?:\\s?[kmb]n?\\b)?|\\b\\d[\\d,.]*(?:\\s|-)?${UNIT}\\b(?!-\\d))`, 'gi');

/** Words that are capitalised without being names. */
const NOT_NAMES = new Set(
  (
    "i i'm i've i'll i'd im ive ok okay yes no hey hi hello wow oh thanks thank todo fyi btw lol omg ps the a an and " +
    'but or so if then this that these those it its we our you your he she they my me his her their there here what ' +
    'when where why how who which while also just still yet maybe please sure great good nice cool awesome amazing ' +
    'mr mrs ms dr st jr monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri ' +
    'sat sun january february march april may june july august september october november december jan feb mar apr ' +
    'jun jul aug sep sept oct nov dec decision decisions pinned note notes update done next context state learning ' +
    'learnings today yesterday tomorrow tonight kb mb gb tb ms'
  ).split(' '),
);

/** Items of one sentence (its day prefix from a finer summary is layout, not content). */
export function itemsOfSentence(sentence: Pick<Sentence, 'text' | 'role' | 'mustKeep'>): MustKeepItem[] {
  return [...sharedItemsOfSentence(sentence)];
}

/** `itemsOfSentence` without the copy, for a caller that only reads them (the memo's own array). */
export function sharedItemsOfSentence(sentence: Pick<Sentence, 'text' | 'role' | 'mustKeep'>): readonly MustKeepItem[] {
  const key = `${sentence.role}\u0000${sentence.mustKeep.join(',')}\u0000${sentence.text}`;
  return sentenceItems.get(key, () => itemsOfSentenceUncached(sentence));
}

function itemsOfSentenceUncached(sentence: Pick<Sentence, 'text' | 'role' | 'mustKeep'>): MustKeepItem[] {
  let text = stripDayLabel(sentence.text.trim());
  const items: MustKeepItem[] = [];
  const pinned = sentence.mustKeep.includes('pinned') || hasPinnedLabel(text);
  const bare = text.replace(LABEL_PREFIX, '').replace(CRITICAL_TAG, '').trim();
  if (pinned && bare) items.push({ kind: 'pinned', text: bare });
  else if (/#critical\b/i.test(text) && bare) items.push({ kind: 'critical', text: bare });
  else if (sentence.role === 'decision' && bare) items.push({ kind: 'decision', text: bare });
  text = text.replace(LABEL_PREFIX, '');

  for (const match of text.matchAll(CODE_SPAN)) {
    const code = match[1]!.trim();
    if (code.length > 0 && code.length <= 80) items.push({ kind: 'code', text: code });
  }
  const prose = text.replace(CODE_SPAN, ' ').replace(/https?:\/\/\S+/g, ' ');
  // Hashes, versions, issue refs, dates and quantities all have a digit: most sentences have none, and skip ten patterns.
  if (DIGIT.test(prose)) {
    for (const match of prose.matchAll(COMMIT)) items.push({ kind: 'code', text: match[0] });
    for (const match of prose.matchAll(VERSION)) items.push({ kind: 'code', text: match[0] });
    for (const match of prose.matchAll(ISSUE)) items.push({ kind: 'issue', text: match[0] });
    items.push(...datesOf(prose).map((date) => ({ kind: 'date' as const, text: date })));
    for (const match of prose.matchAll(NUMBER_WITH_UNIT)) {
      const value = match[0].trim();
      // A bare year or a date part is a date, not a quantity.
      if (!/^\d{4}$/.test(value)) items.push({ kind: 'number', text: value });
    }
  }
  items.push(...namesOf(prose).map((name) => ({ kind: 'name' as const, text: name })));
  return items;
}

/** Absolute dates in `text`, longest forms first (a full date is not also listed as its year). */
export function datesOf(text: string): string[] {
  if (!DIGIT.test(text)) return []; // every date pattern has a digit
  const found: { start: number; end: number; text: string }[] = [];
  // The patterns that name a month are skipped when no month's first three letters are in the text.
  const months = MONTH_START.test(text);
  for (const pattern of DATE_PATTERNS) {
    if (!months && NAMES_A_MONTH.has(pattern)) continue;
    for (const match of text.matchAll(pattern)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      found.push({ start, end, text: match[0] });
    }
  }
  return found.sort((a, b) => a.start - b.start).map((f) => f.text);
}

const MONTH_INDEX: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

/** A date's canonical form, so `7 May 2023`, `May 7, 2023` and `2023-05-07` are one item: `2023-05-07`, `2023-05`, `2023`, or `--05-07` without a year. */
export function canonicalDate(text: string): string | undefined {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (iso) return text;
  const lower = text
    .toLowerCase()
    .replace(/(\d)(?:st|nd|rd|th)\b/g, '$1')
    .replace(/[.,]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const pad = (n: number): string => String(n).padStart(2, '0');
  let m = /^(\d{1,2}) ([a-z]+) (\d{4})$/.exec(lower) ?? undefined;
  if (m) return MONTH_INDEX[m[2]!.slice(0, 3)] ? `${m[3]}-${pad(MONTH_INDEX[m[2]!.slice(0, 3)]!)}-${pad(Number(m[1]))}` : undefined;
  m = /^([a-z]+) (\d{1,2}) (\d{4})$/.exec(lower) ?? undefined;
  if (m) return MONTH_INDEX[m[1]!.slice(0, 3)] ? `${m[3]}-${pad(MONTH_INDEX[m[1]!.slice(0, 3)]!)}-${pad(Number(m[2]))}` : undefined;
  m = /^([a-z]+) (\d{4})$/.exec(lower) ?? undefined;
  if (m) return MONTH_INDEX[m[1]!.slice(0, 3)] ? `${m[2]}-${pad(MONTH_INDEX[m[1]!.slice(0, 3)]!)}` : undefined;
  m = /^(\d{1,2}) ([a-z]+)$/.exec(lower) ?? /^([a-z]+) (\d{1,2})$/.exec(lower) ?? undefined;
  if (m) {
    const [day, month] = /^\d/.test(m[1]!) ? [m[1]!, m[2]!] : [m[2]!, m[1]!];
    return MONTH_INDEX[month.slice(0, 3)] ? `--${pad(MONTH_INDEX[month.slice(0, 3)]!)}-${pad(Number(day))}` : undefined;
  }
  if (/^\d{4}$/.test(lower)) return lower;
  return undefined;
}

/** `.`, `!`, `?`, `:` and `;`: what ends a sentence (or opens a list) before a word, in `namesOf`. */
const SENTENCE_END = new Set([...'.!?:;'].map((ch) => ch.charCodeAt(0)));

/** `/^\p{Lu}/u.test(word)`, with ASCII told without the regex. */
function startsUpper(word: string): boolean {
  const c = word.charCodeAt(0);
  if (c < 128) return c >= 65 && c <= 90;
  return /^\p{Lu}/u.test(word);
}

const WORD_TOKEN = /[\p{L}\p{N}][\p{L}\p{N}'’.&+-]*[\p{L}\p{N}+]|[\p{L}\p{N}]/gu;

/**
 * Proper names: runs of capitalised words (or acronyms) that do not open a
 * sentence, joined across `of`/`de`/`the` inside a run, a trailing `'s`
 * removed; plus quoted titles (`"Charlotte's Web"`). A word opening the
 * sentence counts only when the same word is capitalised later in it. A
 * speaker label (`Caroline:` at the start) is not an item.
 */
export function namesOf(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/["“]([^"”]{2,60})["”]/g)) {
    const title = match[1]!.trim();
    const words = title.split(/\s+/);
    if (words.length <= 6 && /^\p{Lu}/u.test(title) && !/[.!?]$/.test(title)) names.push(title.replace(/[,;:]$/, ''));
  }
  const body = text.replace(/^\s*[\p{Lu}][\p{L}'’.-]*(?: [\p{Lu}][\p{L}'’.-]*){0,2}:\s+/u, '');
  const tokens = [...body.matchAll(WORD_TOKEN)].map((m) => ({ word: m[0], index: m.index ?? 0 }));
  let run: string[] = [];
  const flush = (): void => {
    while (run.length > 0 && /^(?:of|de|the|van|von|and|&)$/i.test(run[run.length - 1]!)) run.pop();
    if (run.length > 0) {
      const name = run.join(' ').replace(/['’]s$/, '');
      // Two-letter acronyms (UI, QA, H2) are too common to be worth keeping.
      if (name.length >= 3 && !NOT_NAMES.has(name.toLowerCase())) names.push(name);
    }
    run = [];
  };
  tokens.forEach(({ word, index }, i) => {
    const previous = tokens[i - 1];
    const gapStart = previous ? previous.index + previous.word.length : 0;
    // One blank between two words (the usual gap) is told apart without slicing it out.
    const adjacent = previous !== undefined && index - gapStart === 1 && body.charCodeAt(gapStart) === 32;
    // A word opens a sentence after `.`, `!`, `?`, `:` or `;` (quotes and brackets between allowed), or at the start.
    const opensSentence =
      !previous ||
      (!adjacent && /[.!?:;]/.test(body.slice(gapStart, index))) ||
      SENTENCE_END.has(previous.word.charCodeAt(previous.word.length - 1));
    const capitalised = startsUpper(word) && !NOT_NAMES.has(word.toLowerCase().replace(/['’].*$/, '')) && !/^\d/.test(word);
    if (capitalised && !opensSentence) {
      if (!adjacent) flush();
      run.push(word.replace(/[.]+$/, ''));
      return;
    }
    if (capitalised && opensSentence) {
      flush();
      // The opener counts only if the sentence names it again further on.
      if (tokens.slice(i + 1).some((t) => t.word === word)) run.push(word);
      return;
    }
    if (run.length > 0 && adjacent && /^(?:of|de|the|van|von|&)$/i.test(word)) {
      run.push(word);
      return;
    }
    flush();
  });
  flush();
  return names;
}
