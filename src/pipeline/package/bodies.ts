import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../../util/hash.js';
import { frontmatterBody } from '../../vault/frontmatter.js';
import { type HeadingSpan, markdownNestingProblem } from '../../vault/markdown.js';
import type { Memory, Summary } from '../../vault/model.js';

/**
 * The package shows bodies with their headings demoted, which needs only
 * the body's text and where its top-level headings are, not its sentences.
 * A fresh clone has no parsed body in its cache: parsing every body the
 * package weighs (`refine` tries whole days of memories and every summary)
 * was most of a nightly build. Here the headings come from the lines when
 * the lines leave no doubt, and the caller parses only when they do.
 */

/** A body as its parse gives it (`ParsedContent.body`: trimmed) and its top-level headings. */
export interface UnparsedBody {
  body: string;
  headings: HeadingSpan[];
}

/** A top-level heading starts a line with at most 3 spaces and `#`, or is underlined (setext): a body without such a line has none. */
const MAYBE_HEADING = /^ {0,3}#|^ {0,3}(?:=+|-+)[ \t]*$/m;
/**
 * Lines outside fenced code after which a line starting with `#` might not
 * be a top-level ATX heading, or a heading might not start with `#`: HTML,
 * link reference definitions (a title may span lines), setext underlines,
 * indented `#` (a heading in a list item, or 1-3 spaces), a fence after
 * indentation or list and quote markers (code in a container). Any of them:
 * the caller parses instead.
 */
const UNSURE = /^[ \t>*+\-0-9.)]*[<[]|^ {0,3}(?:=+|-+)[ \t]*$|^[ \t]+#|^[ \t>*+\-0-9.)]+(?:```|~~~)/;
const ATX = /^(#{1,6})(?:[ \t]|$)/;
/** A fence at the start of a line: its run of marks, and the rest (a backtick fence's info string holds no backtick). */
const FENCE = /^(`{3,}|~{3,})(.*)$/;
const CLOSING_FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/**
 * The top-level headings of a trimmed body as remark finds them
 * (`headingSpans`), from its lines alone; undefined when a construct makes
 * that uncertain. Outside fenced code (opened at the start of a line), a line
 * starting with 1-6 `#` and a space, a tab or its end is an ATX heading (it
 * interrupts a paragraph and closes a list or quote it is not indented into);
 * its text is the line without the marks, the surrounding spaces and an
 * optional closing run of `#`.
 */
export function headingsFromLines(body: string): HeadingSpan[] | undefined {
  if (!MAYBE_HEADING.test(body)) return [];
  if (body.includes('\r') || markdownNestingProblem(body)) return undefined;
  const spans: HeadingSpan[] = [];
  let fence: { mark: string; length: number } | undefined;
  for (let start = 0; start <= body.length; ) {
    let end = body.indexOf('\n', start);
    if (end < 0) end = body.length;
    const line = body.slice(start, end);
    if (fence) {
      const close = CLOSING_FENCE.exec(line)?.[1];
      if (close && close[0] === fence.mark && close.length >= fence.length) fence = undefined;
    } else {
      const open = FENCE.exec(line);
      if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) fence = { mark: open[1]![0]!, length: open[1]!.length };
      else if (UNSURE.test(line)) return undefined;
      else {
        const marks = ATX.exec(line)?.[1];
        if (marks) spans.push([start, end, marks.length, ...headingText(body, start + marks.length, end)]);
      }
    }
    start = end + 1;
  }
  return spans;
}

/** Where the text of an ATX heading is in `body` (`from`: after its marks), or -1, -1 when it is empty. */
function headingText(body: string, from: number, end: number): [number, number] {
  const isBlank = (i: number) => body[i] === ' ' || body[i] === '\t';
  let first = from;
  while (first < end && isBlank(first)) first++;
  let last = end;
  while (last > first && isBlank(last - 1)) last--;
  // A closing run of `#`: the whole rest, or preceded by a space or tab.
  let hashes = last;
  while (hashes > first && body[hashes - 1] === '#') hashes--;
  if (hashes < last && (hashes === first || isBlank(hashes - 1))) {
    last = hashes;
    while (last > first && isBlank(last - 1)) last--;
  }
  return last > first ? [first, last] : [-1, -1];
}

/**
 * Reads bodies from the files, once each: a memory's only while its content
 * has the hash the build loaded (else undefined: the caller's reader says the
 * file changed), a summary's as the content store reads it.
 */
export function bodyReader(vaultDir: string): (file: Memory | Summary) => UnparsedBody | undefined {
  const known = new Map<string, UnparsedBody | undefined>();
  return (file) => {
    const key = `${file.path}\n${file.sha256}`;
    if (known.has(key)) return known.get(key);
    let found: UnparsedBody | undefined;
    try {
      const bytes = readFileSync(path.join(vaultDir, file.path));
      if (!('meta' in file) && sha256(bytes) !== file.sha256) return undefined;
      const body = frontmatterBody(bytes.toString('utf8')).trim();
      const headings = headingsFromLines(body);
      found = headings ? { body, headings } : undefined;
    } catch {
      found = undefined;
    }
    known.set(key, found);
    return found;
  };
}
