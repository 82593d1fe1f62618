import { processTerm } from './analyzer.js';
import { CappedMemo } from '../util/memo.js';
import { frontmatterFence } from '../text/frontmatter-fence.js';

/**
 * Snippets: the line of a file that holds the most of a hit's matched words,
 * with those words marked `**word**`, and its 1-based line number in the
 * file (frontmatter lines counted, so `path:line` opens at the right place).
 * Pure.
 */

const WORD = /[\p{L}\p{N}][\p{L}\p{N}_-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;
const MAX_CHARS = 200;

const normalize = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ');

// Stems of the words snippets have seen: a warm process meets the same words again and again (bounded for one that runs for days).
const stems = new CappedMemo<string, string>(100_000);
function stemOf(word: string): string {
  return stems.get(word, () => processTerm(word));
}

/**
 * `terms`: the stemmed index terms the hit matched; `prefixes`: stems it
 * matched as a prefix. Returns undefined when the text lacks one of
 * `phrases` (the hit is dropped).
 */
export function snippetOf(
  text: string,
  terms: ReadonlySet<string>,
  phrases: readonly string[],
  prefixes: readonly string[] = [],
): { line: number; text: string } | undefined {
  const flat = normalize(text);
  if (!phrases.every((phrase) => flat.includes(normalize(phrase)))) return undefined;
  const lines = text.split(/\r?\n/);
  // The first body line: the frontmatter's lines are those before the fence's end.
  const fence = frontmatterFence(text);
  const bodyStart = fence ? text.slice(0, fence.bodyStart).split(/\r?\n/).length - 1 : 0;
  const matches = (word: string): boolean => {
    const stem = stemOf(word);
    return terms.has(stem) || prefixes.some((prefix) => stem.startsWith(prefix));
  };
  let best = -1;
  let bestScore = 0;
  lines.forEach((line, i) => {
    // Frontmatter only counts through its title (a hit on a title or tag still gets a line).
    if (i < bodyStart && !/^(title|tags):/.test(line)) return;
    const found = new Set((line.match(WORD) ?? []).filter(matches).map(stemOf));
    const score = found.size + phrases.filter((p) => normalize(line).includes(normalize(p))).length * 2 + (i >= bodyStart ? 0.5 : 0);
    if (found.size > 0 && score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  if (best < 0) best = lines.findIndex((line, i) => i >= bodyStart && line.trim() !== '');
  if (best < 0) best = 0;
  return { line: best + 1, text: mark(lines[best]!.trim(), matches) };
}

/** Marks matched words and cuts a long line around its first mark. */
function mark(line: string, matches: (word: string) => boolean): string {
  let first = -1;
  const marked = line.replace(WORD, (word, offset: number) => {
    if (!matches(word)) return word;
    if (first < 0) first = offset;
    return `**${word}**`;
  });
  if (marked.length <= MAX_CHARS) return marked;
  const firstMarked = marked.indexOf('**');
  const start = Math.max(0, Math.max(firstMarked, 0) - 60);
  // Never cut inside a marked word.
  let end = Math.min(marked.length, start + MAX_CHARS);
  const opens = (marked.slice(0, end).match(/\*\*/g) ?? []).length;
  if (opens % 2 === 1) end = marked.indexOf('**', end) + 2;
  return `${start > 0 ? '…' : ''}${marked.slice(start, end).trim()}${end < marked.length ? '…' : ''}`;
}
