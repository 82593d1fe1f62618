import type { Heading, Nodes, Root } from 'mdast';
import type remarkParseType from 'remark-parse';
import type { unified as unifiedType } from 'unified';
import { lazy, requireLazy } from '../util/lazy.js';

// Built once, on first use: a processor per call would re-run plugin attachment for every file,
// and a build that parses nothing should not load remark at all.
const parser = lazy(() => {
  const { unified } = requireLazy('unified') as { unified: typeof unifiedType };
  const remarkParse = (requireLazy('remark-parse') as { default: typeof remarkParseType }).default;
  return unified().use(remarkParse).freeze();
});

/** Block nesting (list items, block quotes, two columns of indentation each) a line may open: see `markdownNestingProblem`. */
export const MAX_MARKDOWN_NESTING = 32;
/** Longest run of `*`/`_` emphasis marks outside a thematic break: micromark resolves a run in time quadratic in its length. */
export const MAX_EMPHASIS_RUN = 64;
/**
 * Emphasis runs and `[` brackets in one paragraph (lines up to a blank one):
 * micromark matches openers and closers across the paragraph, in time that
 * grows with their count squared (`*a* ` × 50,000 in one paragraph: 21 s).
 */
export const MAX_PARAGRAPH_DELIMITERS = 1000;

/**
 * Parses a markdown body into an mdast syntax tree (CommonMark, via unified +
 * remark-parse). Text nested past the limits of `markdownNestingProblem`
 * (which memories are rejected for) is not given to remark, whose time grows
 * faster than the nesting and whose tree walks recurse: it parses as an empty
 * document.
 */
export function parseMarkdown(text: string): Root {
  if (markdownNestingProblem(text)) return { type: 'root', children: [] };
  const pieces = topLevelPieces(text, PIECE_LINES);
  if (pieces.length === 1) return parser().parse(text);
  // Long text is parsed in pieces cut where a top-level block starts: micromark and mdast-util-from-markdown take
  // time quadratic in a list's items when they hold sub-lists (`- a` / `  - b` × 4,000: ~30 s). A list cut in two is
  // two lists of the same items, which reads the same as sentences; positions are shifted back to the whole text's.
  const root: Root = { type: 'root', children: [] };
  for (const piece of pieces) {
    const tree = parser().parse(text.slice(piece.offset, piece.end));
    shiftPositions(tree, piece.line, piece.offset);
    root.children.push(...tree.children);
  }
  root.position = {
    start: { line: 1, column: 1, offset: 0 },
    end: root.children.at(-1)?.position?.end ?? { line: 1, column: 1, offset: 0 },
  };
  return root;
}

/** Lines per piece (at least) before `parseMarkdown` may cut long text. */
export const PIECE_LINES = 200;

/**
 * Where long text may be cut: after at least `minLines` lines, before a line
 * at column 0 that follows a blank line or opens a list item (`-`, `*`, `+`,
 * `1.`), outside fenced code. Such a line starts a new top-level block (or a
 * new item of the same list), so no paragraph or code block is cut.
 */
function topLevelPieces(text: string, minLines: number): { offset: number; end: number; line: number }[] {
  const pieces: { offset: number; end: number; line: number }[] = [];
  let pieceStart = 0;
  let pieceLine = 0;
  let line = 0;
  let fence = '';
  let previousBlank = false;
  for (let start = 0; start < text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const c = text.charCodeAt(start);
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(text.slice(start, Math.min(end, start + 20)))?.[1];
    const topLevel =
      start < end &&
      !isBlank(c) &&
      (previousBlank || /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/.test(text.slice(start, Math.min(end, start + 12))));
    if (!fence && topLevel && line - pieceLine >= minLines && !opener) {
      pieces.push({ offset: pieceStart, end: start, line: pieceLine });
      pieceStart = start;
      pieceLine = line;
    }
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = '';
    } else if (opener) fence = opener;
    previousBlank = text.slice(start, end).trim().length === 0;
    start = end + 1;
  }
  pieces.push({ offset: pieceStart, end: text.length, line: pieceLine });
  return pieces;
}

/** Moves every position of a tree parsed from a piece by the piece's first line and offset (an explicit stack: trees may be deep). */
function shiftPositions(tree: Root, lines: number, offset: number): void {
  const stack: Nodes[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const position = node.position;
    if (position) {
      for (const point of [position.start, position.end]) {
        point.line += lines;
        if (point.offset !== undefined) point.offset += offset;
      }
    }
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
}

/**
 * The first line (1-based) nested past `MAX_MARKDOWN_NESTING` or holding an
 * emphasis run longer than `MAX_EMPHASIS_RUN`, or undefined. One pass over
 * the text: each line's container prefix (`>`, `-`/`*`/`+`/`1.` markers and
 * indentation) is counted, lines inside fenced code are not looked at.
 * remark-parse takes ~55 s for a list nested 5,000 deep, ~15 s for 5,000
 * nested emphasis marks and ~21 s for 50,000 `*a*` in one paragraph; under
 * these limits its time stays about linear in the text's length.
 */
export function markdownNestingProblem(text: string): { line: number; what: string; limit: number } | undefined {
  let line = 0;
  let fence = '';
  let delimiters = 0;
  for (let start = 0; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let i = start;
    let spaces = 0;
    let markers = 0;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9) {
        spaces += c === 9 ? 4 : 1;
        i++;
      } else if (c === 62) {
        markers++;
        // The one blank after a marker belongs to it; more blanks are indentation.
        i += isBlank(text.charCodeAt(i + 1)) ? 2 : 1;
      } else if ((c === 45 || c === 42 || c === 43) && (i + 1 === end || isBlank(text.charCodeAt(i + 1)))) {
        markers++;
        i += 2;
      } else {
        let j = i;
        while (j < end && j - i < 9 && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
        const after = text.charCodeAt(j);
        if (j > i && (after === 46 || after === 41) && (j + 1 === end || isBlank(text.charCodeAt(j + 1)))) {
          markers++;
          i = j + 2;
        } else break;
      }
    }
    const opener = /^(`{3,}|~{3,})/.exec(text.slice(i, Math.min(end, i + 16)))?.[1];
    // Inside fenced code nothing nests (the fence's own line is checked like any other).
    if (!fence && !isThematicBreak(text, start, end)) {
      if (markers + Math.floor(spaces / 2) > MAX_MARKDOWN_NESTING)
        return { line: line + 1, what: 'lists or block quotes', limit: MAX_MARKDOWN_NESTING };
      let run = 0;
      if (i >= end) delimiters = 0; // a blank line ends the paragraph
      for (let k = i; k < end && !opener; k++) {
        const c = text.charCodeAt(k);
        run = c === 42 || c === 95 ? run + 1 : 0;
        if (run > MAX_EMPHASIS_RUN) return { line: line + 1, what: 'a run of `*`/`_` emphasis marks', limit: MAX_EMPHASIS_RUN };
        if (run === 1 || c === 91) delimiters++;
        if (delimiters > MAX_PARAGRAPH_DELIMITERS) {
          return { line: line + 1, what: 'emphasis marks and `[` brackets in one paragraph', limit: MAX_PARAGRAPH_DELIMITERS };
        }
      }
    }
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = '';
    } else if (opener) fence = opener;
    start = end + 1;
  }
  return undefined;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

/** A line of only `*`, `-` or `_` marks and blanks (`* * *`, `___`): a rule, not lists or emphasis. */
function isThematicBreak(text: string, start: number, end: number): boolean {
  let marks = 0;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === 42 || c === 45 || c === 95) marks++;
    else if (!isBlank(c)) return false;
  }
  return marks >= 3;
}

/**
 * Whether a markdown body may hold a top-level heading: a line with up to 3
 * spaces then 1-6 `#` and a space or its end (ATX), or a setext underline.
 * False is certain (no such line, no heading); true needs remark to say where.
 */
export function mayHaveHeadings(body: string): boolean {
  return /^ {0,3}#{1,6}(?:\s|$)|^ {0,3}(?:=+|-+)\s*$/m.test(body);
}

/**
 * Where the top-level headings of a parsed body are: `[start, end, depth,
 * textStart, textEnd]` as offsets into the text (text offsets -1 for an empty
 * heading). Kept with parsed bodies so headings can be demoted later without
 * parsing the body again (`demoteHeadings`).
 */
export type HeadingSpan = [number, number, number, number, number];

export function headingSpans(tree: Root): HeadingSpan[] {
  const spans: HeadingSpan[] = [];
  for (const node of tree.children) {
    if (node.type !== 'heading') continue;
    const heading = node as Heading;
    const start = heading.position?.start.offset;
    const end = heading.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    const first = heading.children[0]?.position?.start.offset;
    const last = heading.children[heading.children.length - 1]?.position?.end.offset;
    spans.push([start, end, heading.depth, first ?? -1, first !== undefined && last !== undefined ? last : -1]);
  }
  return spans;
}
