import MiniSearch from 'minisearch';
import { INDEX_OPTIONS, processTerm, tokenize } from '../../search/index.js';

/**
 * Passages: the part of a memory that answers a query, for when the whole
 * memory is more than the relevant tier can hold. A memory's body is cut
 * into blocks (paragraphs, long ones at sentence ends); the blocks of the
 * memories a search found are ranked with BM25 (minisearch, the search
 * index's words and stems), and each hit comes with its neighbours (the
 * question before an answer, the reply after a statement). Pure.
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

/** Blocks of a body and their stems, remembered by body: the same memories come back request after request. */
const splits = new Map<string, { blocks: string[]; lines: number[]; stems: string[] }>();
function splitOf(body: string): { blocks: string[]; lines: number[]; stems: string[] } {
  let out = splits.get(body);
  if (!out) {
    const spans = blockSpans(body);
    const blocks = spans.map((span) => span.text);
    out = { blocks, lines: spans.map((span) => span.line), stems: blocks.map((block) => tokenize(block).map(stem).join(' ')) };
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
}

/**
 * The best passages of `sources` for `query`, best first. Each is a hit block
 * and up to `window` blocks either side, without the blocks an earlier
 * passage already holds, and the answer after a block that asks; a hit
 * inside an earlier passage adds the blocks after it that are not quoted yet.
 *
 * @example
 *   rankPassages([{ path: 'main/memories/a.md', body: 'Intro.\n\nSessions expire after 30 days.', weight: 1 }], 'session expiry')
 *   // [{ path: 'main/memories/a.md', first: 0, last: 1, blocks: 2, text: 'Intro.\n\nSessions expire after 30 days.', score: … }]
 */
export function rankPassages(sources: readonly PassageSource[], query: string, options: PassageOptions = {}): Passage[] {
  const window = options.window ?? 1;
  const limit = options.limit ?? 64;
  const split = sources.map((s) => splitOf(s.body));
  const blocks = split.map((x) => x.blocks);
  // Blocks are indexed as their stems (worked out once per body); the query goes through the search index's words and stems.
  const index = new MiniSearch<{ id: string; text: string }>({
    fields: ['text'],
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term || null,
    searchOptions: {
      tokenize,
      processTerm: stem,
      prefix: INDEX_OPTIONS.searchOptions?.prefix,
      fuzzy: INDEX_OPTIONS.searchOptions?.fuzzy,
    },
  });
  index.addAll(split.flatMap((x, d) => x.stems.map((text, b) => ({ id: `${d}:${b}`, text }))));
  const ranked = index
    .search(query)
    .map((r) => {
      const [d, b] = String(r.id).split(':').map(Number) as [number, number];
      // The document's own match counts too: a block of a memory that is about the query beats the same words in passing.
      return { d, b, score: r.score * (0.5 + 0.5 * sources[d]!.weight) };
    })
    .sort((x, y) => y.score - x.score || x.d - y.d || x.b - y.b);
  const taken = sources.map(() => new Set<number>());
  const out: Passage[] = [];
  for (const { d, b, score } of ranked) {
    if (out.length >= limit) break;
    // A hit an earlier passage holds already brings the blocks after it that the passage left out (its reply).
    const inside = taken[d]!.has(b);
    if (inside && (b + 1 >= blocks[d]!.length || taken[d]!.has(b + 1) || window === 0)) continue;
    let first = inside ? b + 1 : b;
    let last = first;
    while (!inside && first > 0 && b - first < window && !taken[d]!.has(first - 1)) first--;
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
