import { oneLine } from '../../text/safe-text.js';
import type { Part, Version } from './candidate.js';

/**
 * How a context shows its items: a memory's excerpts under one heading with
 * its date and `path:line`, each later passage with its own line; and the
 * beginning of a long item cut at a sentence end to fit. Pure: the caller
 * passes the body lines and the token counter.
 */

/** The 1-based line of a vault file its body starts on, when it is a readable file (`bodyLineFor`). */
export type BodyLine = (vaultPath: string) => number | undefined;

/** `main/memories/a.md:12`: where the text starts in its file, frontmatter counted, as `search` gives hits. */
function sourceOf(v: Version, bodyLine: BodyLine): string {
  const line = bodyLine(v.source);
  return line === undefined ? v.source : `${v.source}:${line + (v.part?.line ?? 0)}`;
}

/**
 * One item, or several excerpts of one memory under one heading (in block
 * order), the heading with the `path:line` of the first excerpt and each
 * later excerpt that does not follow on from the one before opening with its
 * own line, `` `:40` ``: one date and path for the memory, a line for every
 * passage (a heading is ~46 tokens, a line label 2). `…` says blocks are left
 * out before the first excerpt or after the last. No "parts 3–5 of 18": the
 * words went to the budget (a label was a quarter of a 1,000-token context).
 */
export function renderGroup(versions: readonly Version[], bodyLine: BodyLine): string {
  const sorted = versions[0]!.part ? [...versions].sort((a, b) => a.part!.first - b.part!.first) : versions;
  const first = sorted[0]!;
  // A label holds a memory's title, kind and tags: one line (`oneLine`), so it cannot open a section of the context.
  const head = `### ${oneLine(first.label)} \`${sourceOf(first, bodyLine)}\`\n\n`;
  if (!first.part) return `${head}${first.text.trim()}\n`;
  const parts = sorted.map((v) => v.part!);
  const body: string[] = [];
  if (first.part.first > 0) body.push('…');
  sorted.forEach((v, i) => {
    const follows = i === 0 || followsOn(v.part!, [parts[i - 1]!]);
    body.push(follows ? v.text.trim() : joinedText(v, bodyLine));
  });
  if (parts[parts.length - 1]!.last < first.part.of - 1) body.push('…');
  return `${head}${body.join('\n\n')}\n`;
}

/** Whether an excerpt starts at or before the block after one of `placed` (its memory's excerpts): it then needs no label of its own. */
export function followsOn(part: Part, placed: readonly Part[]): boolean {
  return placed.some((p) => part.first <= p.last + 1 && part.first > p.first);
}

/**
 * An excerpt after a gap in its memory, under the memory's heading: `` `:40` `` (its line in the file) and its text;
 * `…` and the text when the file has no readable line (the heading's path has none either).
 */
export function joinedText(v: Version, bodyLine: BodyLine): string {
  const line = bodyLine(v.source);
  return line === undefined ? `…\n\n${v.text.trim()}` : `\`:${line + (v.part?.line ?? 0)}\` ${v.text.trim()}`;
}

/**
 * The longest beginning of an item whose block fits `room` tokens, marked as
 * cut: whole lines while they fit (each line's count is remembered, so a
 * long summary cut at many budgets is counted once), then whole sentences of
 * the next; never part of a sentence, so what is quoted reads as written.
 */
export function cutVersion(
  version: Version,
  room: number,
  size: (v: Version) => number,
  count: (text: string) => number,
): { version: Version; tokens: number } {
  const marker = ' […cut to fit; zoom into its period for all of it]';
  const make = (text: string): Version => ({ ...version, part: undefined, text: `${text.trimEnd()}${marker}` });
  const overhead = size(make(''));
  const lines = version.text.split('\n');
  let lineCount = 0;
  let spent = overhead;
  while (lineCount < lines.length && spent + count(`${lines[lineCount]!}\n`) <= room) spent += count(`${lines[lineCount++]!}\n`);
  // Joins can merge tokens either way: step back until the exact count fits.
  let kept = lines.slice(0, lineCount).join('\n');
  while (lineCount > 0 && size(make(kept)) > room) kept = lines.slice(0, --lineCount).join('\n');
  // Then as many whole sentences of the next line as fit (a binary search over them).
  const sentences = sentencesOf(lines[lineCount] ?? '');
  let low = 0;
  let high = lineCount < lines.length ? sentences.length - 1 : 0;
  const withSentences = (n: number): string => (n === 0 ? kept : `${kept}${lineCount > 0 ? '\n' : ''}${sentences.slice(0, n).join(' ')}`);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (size(make(withSentences(mid))) <= room) low = mid;
    else high = mid - 1;
  }
  const cut = make(withSentences(low));
  return { version: cut, tokens: size(cut) };
}

/** A line's sentences (split after `.`, `!` or `?` and a space), as `blocksOf` cuts a long paragraph. */
function sentencesOf(line: string): string[] {
  return line.split(/(?<=[.!?])\s+/).filter((sentence) => sentence.length > 0);
}
