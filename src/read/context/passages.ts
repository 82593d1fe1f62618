import { matchPlan, type MatchPlan, type Vocabulary } from '../../search/match.js';
import { processTerm, tokenize } from '../../search/index.js';
import { answerKinds, answerTerm, answerTermsOf, isAnswerTerm, speakersOf } from './answer-kinds.js';

/**
 * Passages: the part of a memory that answers a query, for when the whole
 * memory is more than the relevant tier can hold. A memory's body is cut
 * into blocks (paragraphs, long ones at sentence ends); the blocks of the
 * memories a search found are ranked with BM25 on the search's own terms:
 * the same analyzer (stems of content words) and the same match plan (the
 * query's stems, prefixes and typo alternatives, looked up in the FTS5
 * index's vocabulary), so one engine decides what a query's words match,
 * whether it ranks documents or blocks. Each hit comes with its neighbours
 * (the question before an answer, the reply after a statement). Pure.
 */

/** Stems by word: the same words recur in every request of a long-lived process. */
const stems = new Map<string, string>();
function stem(term: string): string {
  let out = stems.get(term);
  if (out === undefined) {
    if (stems.size >= 100_000) stems.clear();
    out = processTerm(term);
    stems.set(term, out);
  }
  return out;
}

/** A body's blocks, their first lines, and each block's stems with their counts (BM25's term frequencies) and length. */
interface Split {
  blocks: string[];
  lines: number[];
  terms: Map<string, number>[];
  lengths: number[];
  /** Whether `terms` hold the answer kinds' pseudo-terms (added the first time a question asks for a kind). */
  answers: boolean;
}

/**
 * Adds the answer kinds' pseudo-terms (names, dates, numbers) to a split's stem counts, once: only a question that
 * asks for a kind weighs them, so a split without them ranks every other question the same, and a request that asks
 * for none pays nothing.
 */
function withAnswerTerms(split: Split): void {
  if (split.answers) return;
  // Chat turns' speakers: their names are no answer to a question asking for a name.
  const speakers = speakersOf(split.blocks);
  split.blocks.forEach((block, b) => {
    for (const [term, n] of answerTermsOf(block, speakers)) split.terms[b]!.set(term, n);
  });
  split.answers = true;
}

/** Splits remembered by body: the same memories come back request after request. */
const splits = new Map<string, Split>();
function splitOf(body: string): Split {
  let out = splits.get(body);
  if (!out) {
    const spans = blockSpans(body);
    const blocks = spans.map((span) => span.text);
    const terms: Map<string, number>[] = [];
    const lengths: number[] = [];
    for (const block of blocks) {
      const counts = new Map<string, number>();
      const words = tokenize(block);
      for (const word of words) {
        const s = stem(word);
        if (s) counts.set(s, (counts.get(s) ?? 0) + 1);
      }
      terms.push(counts);
      lengths.push(words.length);
    }
    out = { blocks, lines: spans.map((span) => span.line), terms, lengths, answers: false };
    if (splits.size >= 20_000) splits.clear();
    splits.set(body, out);
  }
  return out;
}

/** A block longer than this many characters is cut at sentence ends. */
const MAX_BLOCK_CHARS = 700;

/** Blocks of a markdown body: paragraphs and list items as written, long ones cut at sentence ends. */
export function blocksOf(body: string): string[] {
  return blockSpans(body).map((block) => block.text);
}

/** A block and the line of the body (0-based) it starts on: what a `path:line` label points at. */
export interface BlockSpan {
  text: string;
  line: number;
}

/** `blocksOf` with each block's first line in the body. */
export function blockSpans(body: string): BlockSpan[] {
  const out: BlockSpan[] = [];
  let line = 0;
  const separator = /\n[ \t]*\n/g;
  let start = 0;
  for (;;) {
    const match = separator.exec(body);
    const end = match ? match.index : body.length;
    pushParagraph(out, body.slice(start, end), line);
    if (!match) break;
    line += countLines(body, start, match.index + match[0].length);
    start = match.index + match[0].length;
  }
  return out;
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function pushParagraph(out: BlockSpan[], raw: string, line: number): void {
  const leading = raw.length - raw.trimStart().length;
  const first = line + countLines(raw, 0, leading);
  const text = raw.trim();
  if (!text) return;
  if (text.length <= MAX_BLOCK_CHARS) {
    out.push({ text, line: first });
    return;
  }
  let current = '';
  let currentLine = first;
  let at = 0;
  for (const sentence of text.split(/(?<=[.!?])\s+/)) {
    const position = text.indexOf(sentence, at);
    const sentenceLine = first + countLines(text, 0, Math.max(0, position));
    at = Math.max(at, position + sentence.length);
    if (current && current.length + sentence.length + 1 > MAX_BLOCK_CHARS) {
      out.push({ text: current, line: currentLine });
      current = '';
    }
    if (!current) currentLine = sentenceLine;
    current = current ? `${current} ${sentence}` : sentence;
  }
  if (current) out.push({ text: current, line: currentLine });
}

/** A block whose last sentence asks something (a closing quote or bracket may follow the mark). */
function endsWithQuestion(block: string): boolean {
  return /\?["'’”)\]]*\s*$/.test(block);
}

export interface PassageSource {
  path: string;
  body: string;
  /** How well the whole document matched (its search score over the best score), 0 to 1. */
  weight: number;
}

export interface Passage {
  path: string;
  /** First and last block (0-based) of the passage in its memory, and how many blocks the memory has. */
  first: number;
  last: number;
  blocks: number;
  /** Line of the body (0-based) the passage's first block starts on. */
  line: number;
  text: string;
  score: number;
}

export interface PassageOptions {
  /** Blocks taken on each side of a hit (default 1). */
  window?: number;
  /** Passages returned at most (default 64). */
  limit?: number;
  /** The query as written, when `query` is a match plan (what kind of answer it asks for). */
  text?: string;
}

/** The words of a query as the search matches them: exact stems and stems matched as a prefix (match.ts). */
export type PassageQuery = Pick<MatchPlan, 'terms' | 'prefixes'>;

/** A vocabulary that holds every word: a plain-text query gets the analyzer's stems and prefixes, no typo alternatives. */
const EVERY_WORD: Vocabulary = { hasTerm: () => true, termsBetween: () => [] };

/** BM25+'s parameters (minisearch's, which ranked the passages before): `D` keeps a matched word's weight above zero in a long block. */
const K1 = 1.2;
const B = 0.7;
const D = 0.5;
/** A stem matched only as a prefix of a longer one (`auth` in `authent`) counts less, the more so the longer the rest. */
const PREFIX_WEIGHT = 0.375;

/**
 * BM25+ scores of every block that holds a query term, with the blocks of `split` as the collection: each stem the
 * query matches is a term, weighted by how rare it is among these blocks (`ln(1 + (N − n + 0.5) / (n + 0.5))`, never
 * below zero, so a name in every other turn still counts a little). A prefix term also matches the longer stems it
 * begins (`auth` → `authent`), as in the search, at `PREFIX_WEIGHT` (less as the rest grows).
 */
function scoreBlocks(
  split: readonly Split[],
  query: PassageQuery,
  extra: ReadonlyMap<string, number> = new Map(),
): { d: number; b: number; score: number }[] {
  const exact = new Set(query.terms);
  const prefixes = [...new Set(query.prefixes)];
  // A block stem as a match of the query: the query term it matches (itself, or the prefix it begins with) and its
  // weight (1 exact, less as a prefix match); undefined when it matches none.
  const matched = new Map<string, { term: string; weight: number } | null>();
  const matchOf = (s: string): { term: string; weight: number } | null => {
    let out = matched.get(s);
    if (out === undefined) {
      const prefix = exact.has(s) ? undefined : prefixes.filter((p) => s.startsWith(p)).sort((a, b) => b.length - a.length)[0];
      out = exact.has(s)
        ? { term: s, weight: 1 }
        : extra.has(s)
          ? { term: '', weight: extra.get(s)! }
          : prefix
            ? { term: prefix, weight: (PREFIX_WEIGHT * s.length) / (s.length + 0.3 * (s.length - prefix.length)) }
            : null;
      matched.set(s, out);
    }
    return out;
  };
  const weightOf = (s: string): number => matchOf(s)?.weight ?? 0;
  let blocks = 0;
  let totalLength = 0;
  const df = new Map<string, number>();
  const matches: { d: number; b: number; tf: [string, number][] }[] = [];
  split.forEach((x, d) => {
    x.terms.forEach((counts, b) => {
      blocks++;
      totalLength += x.lengths[b]!;
      const tf: [string, number][] = [];
      for (const [s, n] of counts) if (weightOf(s) > 0) tf.push([s, n]);
      if (tf.length === 0) return;
      for (const [s] of tf) df.set(s, (df.get(s) ?? 0) + 1);
      matches.push({ d, b, tf });
    });
  });
  const average = totalLength / Math.max(1, blocks);
  return matches.map(({ d, b, tf }) => {
    const norm = K1 * (1 - B + (B * split[d]!.lengths[b]!) / Math.max(1, average));
    let score = 0;
    const terms = new Set<string>();
    for (const [s, n] of tf) {
      const m = df.get(s)!;
      score += weightOf(s) * Math.log(1 + (blocks - m + 0.5) / (m + 0.5)) * (D + (n * (K1 + 1)) / (n + norm));
      if (matchOf(s)!.term) terms.add(matchOf(s)!.term);
    }
    // A block that holds more of the query's words ranks higher than their weights alone say (minisearch's "quality").
    return { d, b, score: score * Math.max(1, terms.size) };
  });
}

/**
 * A block's score is weighted by how well its whole memory matched the query: `MEMORY_FLOOR + (1 − MEMORY_FLOOR) ×
 * score / best`, so the same words in a memory about the topic beat them in passing (0.5 before; 0.3 measured a little
 * better on LoCoMo and the held-out REALTALK, docs/context.md).
 */
const MEMORY_FLOOR = 0.3;
const byMemory = (weight: number): number => MEMORY_FLOOR + (1 - MEMORY_FLOOR) * weight;

/** Pseudo-relevance feedback: blocks read, words added, and their weight next to a query word's 1. */
const FEEDBACK_BLOCKS = 3;
const FEEDBACK_TERMS = 10;
const FEEDBACK_WEIGHT = 0.15;

/**
 * The words that mark the best `FEEDBACK_BLOCKS` blocks of a first round (RM3's expansion, on the blocks): stems the
 * query did not match, by their share of each block times their rarity, in at least two blocks (one block's words
 * are its own); the best `FEEDBACK_TERMS`, each at `FEEDBACK_WEIGHT`.
 */
function feedbackTerms(
  split: readonly Split[],
  query: PassageQuery,
  scored: readonly { d: number; b: number; score: number }[],
  sources: readonly PassageSource[],
): Map<string, number> {
  const top = scored
    .map(({ d, b, score }) => ({ d, b, score: score * byMemory(sources[d]!.weight) }))
    .sort((x, y) => y.score - x.score || x.d - y.d || x.b - y.b)
    .slice(0, FEEDBACK_BLOCKS);
  const known = new Set(query.terms);
  const share = new Map<string, number>();
  for (const { d, b } of top) {
    const length = Math.max(1, split[d]!.lengths[b]!);
    for (const [s, n] of split[d]!.terms[b]!)
      if (!isAnswerTerm(s) && !known.has(s) && !query.prefixes.some((p) => s.startsWith(p))) share.set(s, (share.get(s) ?? 0) + n / length);
  }
  if (share.size === 0) return new Map();
  let blocks = 0;
  const df = new Map<string, number>();
  for (const x of split)
    for (const counts of x.terms) {
      blocks++;
      for (const s of share.keys()) if (counts.has(s)) df.set(s, (df.get(s) ?? 0) + 1);
    }
  const picked = [...share]
    .filter(([s]) => (df.get(s) ?? 0) >= 2)
    .map(([s, w]): [string, number] => [s, w * Math.log(1 + (blocks - df.get(s)! + 0.5) / (df.get(s)! + 0.5))])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, FEEDBACK_TERMS);
  return new Map(picked.map(([s]) => [s, FEEDBACK_WEIGHT]));
}

/**
 * The best passages of `sources` for `query`, best first. Each is a hit block
 * and up to `window` blocks after it and before it (a block before only when
 * it asks a question or holds a query word), without the blocks an earlier
 * passage already holds, and the answer after a block that asks; a hit
 * inside an earlier passage adds the blocks after it that are not quoted yet.
 * `query` is the search's match plan of the words (`matchPlan`, with the
 * index's vocabulary), or plain text (stems and prefixes, no typo alternatives).
 * Blocks are ranked twice: by the query, then by the query and the words of
 * the first round's best blocks (`feedbackTerms`).
 *
 * @example
 *   rankPassages([{ path: 'main/memories/a.md', body: 'Intro.\n\nSessions expire after 30 days.', weight: 1 }], 'session expiry')
 *   // [{ path: 'main/memories/a.md', first: 0, last: 1, blocks: 2, text: 'Intro.\n\nSessions expire after 30 days.', score: … }]
 */
export function rankPassages(sources: readonly PassageSource[], query: string | PassageQuery, options: PassageOptions = {}): Passage[] {
  const window = options.window ?? 1;
  const limit = options.limit ?? 64;
  const split = sources.map((s) => splitOf(s.body));
  const blocks = split.map((x) => x.blocks);
  const plan = typeof query === 'string' ? matchPlan(query, [], EVERY_WORD) : query;
  // A question that asks for a name (`where`, `which city`) or a time (`when`) also matches the blocks that name or
  // date something: the turn that says "Rome" answers "Which city?" without the word city (answer-kinds.ts).
  const asked = answerKinds(typeof query === 'string' ? query : (options.text ?? ''));
  const named = new Map(asked.map((kind): [string, number] => [answerTerm(kind), 1]));
  if (asked.length > 0) for (const x of split) withAnswerTerms(x);
  let first = scoreBlocks(split, plan, named);
  // A second round on the same blocks: the words that mark the first round's best blocks, added at a small weight
  // (pseudo-relevance feedback), find the turns that answer a question in other words than it asks.
  const expansion = feedbackTerms(split, plan, first, sources);
  for (const [t, w] of named) expansion.set(t, w);
  if (expansion.size > 0) first = scoreBlocks(split, plan, expansion);
  const ranked = first
    // The document's own match counts too: a block of a memory that is about the query beats the same words in passing.
    .map(({ d, b, score }) => ({ d, b, score: score * byMemory(sources[d]!.weight) }))
    .sort((x, y) => y.score - x.score || x.d - y.d || x.b - y.b);
  // Blocks that hold a query (or feedback) word: a block before a hit is worth its room only when it is one of them.
  const matching = new Set(first.map(({ d, b }) => `${d}:${b}`));
  const taken = sources.map(() => new Set<number>());
  const out: Passage[] = [];
  for (const { d, b, score } of ranked) {
    if (out.length >= limit) break;
    // A hit an earlier passage holds already brings the blocks after it that the passage left out (its reply).
    const inside = taken[d]!.has(b);
    if (inside && (b + 1 >= blocks[d]!.length || taken[d]!.has(b + 1) || window === 0)) continue;
    let first = inside ? b + 1 : b;
    let last = first;
    // The block before comes only when it asks what the hit answers or holds a query word itself; the one after always
    // (the reply to a statement). Other blocks before a hit took room the next passage could use.
    while (
      !inside &&
      first > 0 &&
      b - first < window &&
      !taken[d]!.has(first - 1) &&
      (endsWithQuestion(blocks[d]![first - 1]!) || matching.has(`${d}:${first - 1}`))
    )
      first--;
    while (last < blocks[d]!.length - 1 && last - b < window && !taken[d]!.has(last + 1)) last++;
    // A passage that ends on a question ends with its answer: the reply is what completes it.
    if (last < blocks[d]!.length - 1 && !taken[d]!.has(last + 1) && endsWithQuestion(blocks[d]![last]!)) last++;
    for (let i = first; i <= last; i++) taken[d]!.add(i);
    const source = sources[d]!;
    out.push({
      path: source.path,
      first,
      last,
      blocks: blocks[d]!.length,
      line: split[d]!.lines[first]!,
      text: blocks[d]!.slice(first, last + 1).join('\n\n'),
      score: Math.round(score * 1000) / 1000,
    });
  }
  return out;
}
