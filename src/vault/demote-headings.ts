import { CappedMemo } from '../util/memo.js';
import { type HeadingSpan, headingSpans, mayHaveHeadings, parseMarkdown } from './markdown.js';

/**
 * Demoting a markdown body's headings so it nests under a heading of its own:
 * the rollups' merges, the package and the waterfall's CONTEXT.md use it.
 */

/** A parsed body and its top-level headings, as the parse cache keeps them (`ParsedContent`). */
export interface ParsedHeadings {
  body: string;
  headings?: HeadingSpan[] | undefined;
}

/** Bodies already demoted (`level` + body → result): the package renders the same summaries on every rebuild, and watch mode rebuilds often. */
const demoted = new CappedMemo<string, string>(4096);

/**
 * Pushes every heading of a markdown body below `level`, so merged sources
 * nest under their own heading. `parsedFrom`, the parsed content `body` was
 * cut from (its end), gives the headings' positions; otherwise the body is
 * parsed for them.
 */
export function demoteHeadings(body: string, level: number, parsedFrom?: ParsedHeadings): string {
  if (!mayHaveHeadings(body)) return body.trim();
  const spans = parsedFrom ? spansWithin(parsedFrom, body) : undefined;
  if (spans) return applyDemotion(body, spans, level);
  const key = `${level}\n${body}`;
  return demoted.get(key, () => applyDemotion(body, headingSpans(parseMarkdown(body)), level));
}

/** The heading spans of `parsed` moved onto `body`, when `body` is the end of `parsed.body` (a title cut off, say). */
function spansWithin(parsed: ParsedHeadings, body: string): HeadingSpan[] | undefined {
  const cut = parsed.body.length - body.length;
  if (!parsed.headings || cut < 0 || !parsed.body.endsWith(body)) return undefined;
  const shift = (offset: number): number => (offset < 0 ? offset : offset - cut);
  return parsed.headings
    .filter((span) => span[0] >= cut)
    .map(([start, end, depth, textStart, textEnd]) => [shift(start), shift(end), depth, shift(textStart), shift(textEnd)]);
}

function applyDemotion(body: string, headings: readonly HeadingSpan[], level: number): string {
  // Edit the source at the headings' positions instead of re-serialising the tree:
  // the rest of the markdown stays byte for byte as written.
  if (headings.length === 0) return body.trim();
  const shallowest = Math.min(...headings.map((span) => span[2]));
  let out = '';
  let cursor = 0;
  for (const [start, end, depth, textStart, textEnd] of headings) {
    const text = textStart >= 0 && textEnd >= 0 ? body.slice(textStart, textEnd).replace(/\s*\n\s*/g, ' ') : '';
    out += `${body.slice(cursor, start)}${'#'.repeat(Math.min(6, depth - shallowest + level + 1))}${text ? ` ${text}` : ''}`;
    cursor = end;
  }
  return `${out}${body.slice(cursor)}`.trim();
}
