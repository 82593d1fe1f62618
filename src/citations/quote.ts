import { sha256 } from '../util/hash.js';
import { quoteLine } from '../vault/citation-find.js';
import type { Quote } from '../vault/citation-model.js';

/**
 * Whether the snippet a memory quotes (find.ts: a fenced block or inline code
 * spans next to `path:10-20`) is still at the cited lines of the file at
 * HEAD, and if not, where in the file it is now. Pure: verify.ts reads the
 * files (one `git cat-file --batch` for all of them) and keeps the answer per
 * quote key with the commit it was checked at.
 */

/** Where a quote was found: `held` at its cited lines; else `at` the lines holding it now, or neither (not in the file). */
export interface QuoteFacts {
  held: boolean;
  at?: [number, number];
}

/**
 * The key a quote's facts are kept under: the cited path, then a hash of the lines and the quoted text (the path in
 * clear, so the answers for a file that did not change are kept without hashing every quote again).
 */
export function quoteKey(target: string, lines: readonly [number, number], quote: Quote): string {
  return `${target}#${sha256(`${lines[0]}-${lines[1]}\u0000${quote.kind}\u0000${quote.text.join('\n')}`).slice(0, 16)}`;
}

/** The cited path of a quote key. */
export function quoteTarget(key: string): string {
  return key.slice(0, key.lastIndexOf('#'));
}

/**
 * Looks for `quote` in `file` (its text at HEAD). The cited lines are read at least as far as the quote is high
 * (`src/a.ts:40` above a five-line block means lines 40-44). A block's lines must each be inside a line of the window,
 * in order; each span inside one of its lines. Not there: the first window of the same height that holds it, else nothing.
 */
export function locateQuote(file: string, lines: readonly [number, number], quote: Quote): QuoteFacts {
  const fileLines = file.split('\n').map((line) => quoteLine(line));
  const height = Math.max(lines[1] - lines[0] + 1, quote.height);
  const first = lines[0] - 1;
  if (lastLineHolding(fileLines, first, first + height, quote) >= 0) return { held: true };
  for (let start = 0; start < fileLines.length; start++) {
    // A window is only worth testing where it starts with a piece of the quote (a block's first line, any span).
    const pieces = quote.kind === 'block' ? quote.text.slice(0, 1) : quote.text;
    if (!pieces.some((piece) => fileLines[start]!.includes(piece))) continue;
    const last = lastLineHolding(fileLines, start, start + height, quote);
    if (last >= 0) return { held: false, at: [start + 1, last + 1] };
  }
  return { held: false };
}

/** The last line (index) of lines [from, to) of the file (quote-normalised) that the quote needs, or -1 when they do not hold it. */
function lastLineHolding(fileLines: readonly string[], from: number, to: number, quote: Quote): number {
  const end = Math.min(fileLines.length, to);
  if (from < 0 || from >= end) return -1;
  if (quote.kind === 'spans') {
    let last = -1;
    for (const span of quote.text) {
      let at = from;
      while (at < end && !fileLines[at]!.includes(span)) at++;
      if (at >= end) return -1;
      last = Math.max(last, at);
    }
    return last;
  }
  let at = from;
  for (const wanted of quote.text) {
    while (at < end && !fileLines[at]!.includes(wanted)) at++;
    if (at >= end) return -1;
    at++;
  }
  return at - 1;
}
