import type { HeadingSpan } from './markdown.js';
import type { Prose } from './sentences.js';

/**
 * Reads a summary this program wrote without parsing it with remark, when it
 * can tell that remark would read it the same way: a cold build writes
 * ~1,100 summaries, and parsing each back cost ~1.7 ms of its ~11 ms.
 *
 * What it accepts is the shape the summarizers write: ATX headings, `- `
 * bullets and `  - ` bullets nested one level, blank lines, on single lines
 * of plain text. Plain means that in CommonMark the text is its own
 * content: no emphasis, links, HTML, entities or escapes can form. Outside
 * single-backtick code spans that is none of `\ * [ ] < > & ~ |`, an `_` only
 * inside a word, and a bullet may open with one bold day or `Pinned:` label
 * (the text of which is the label). Anything else returns undefined and the
 * caller parses the body with remark; tests hold the two to the same result
 * (test/plain-summary.test.ts).
 */
export function readPlainSummary(text: string): { prose: Prose[]; headings: HeadingSpan[] } | undefined {
  const prose: Prose[] = [];
  const headings: HeadingSpan[] = [];
  let offset = 0;
  /** Whether the previous non-blank line was a bullet: only then may a nested bullet follow. */
  let inList = false;
  let previousBlank = false;
  for (const line of text.split('\n')) {
    const start = offset;
    offset += line.length + 1;
    if (line.length === 0) {
      previousBlank = true;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const content = heading[2]!;
      if (!isPlain(content) || content.endsWith('#')) return undefined;
      const depth = heading[1]!.length;
      prose.push({ heading: depth, text: content });
      headings.push([start, start + line.length, depth, start + depth + 1, start + line.length]);
      inList = false;
      previousBlank = false;
      continue;
    }
    const bullet = BULLET.exec(line);
    // A nested bullet needs the bullet line right above it (a blank line between could make it a paragraph's).
    if (!bullet || (bullet[1] !== undefined && (!inList || previousBlank))) return undefined;
    const content = bullet[2]!;
    const label = LABEL.exec(content);
    // After a label the text is inline: only a bullet's first characters could open a block.
    if (!label && OPENS_BLOCK.test(content)) return undefined;
    const rest = label ? content.slice(label[0].length) : content;
    if (!isPlain(rest)) return undefined;
    prose.push({ block: label ? `${label[1]!}${rest}` : content });
    inList = true;
    previousBlank = false;
  }
  return { prose, headings };
}

const HEADING = /^(#{1,6}) (\S(?:.*\S)?)$/;
const BULLET = /^( {2})?- (\S(?:.*\S)?)$/;
/** The bold label a bullet may open with: a day (`**Tue 02-10**`, `**Tue 2026-02-10**`) or `**Pinned:**`, then a space or the end. */
const LABEL = /^\*\*(Pinned:|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:\d{4}-)?\d{2}-\d{2})\*\*(?= |$)/;
/** What would make a bullet's text a block of its own: a heading, a list, a quote, a rule, a `~~~` fence (a backtick fence needs the `` ` `` pair `isPlain` refuses). */
const OPENS_BLOCK = /^(?:#{1,6}(?:[ \t]|$)|[-+*>=_~]|\d{1,9}[.)])/;
/** Characters that start inline markup (or a table, with GFM) outside code spans. */
const MARKUP = /[\\*[\]<>&~|]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/u;

/**
 * Whether `content` reads as itself: outside code spans, no character that
 * starts markup. Code spans are single backticks in pairs (a lone last one
 * is literal text either way); a span whose content begins and ends with a
 * space, or a double backtick, is left to remark.
 */
function isPlain(content: string): boolean {
  if (content.includes('``')) return false;
  let outside = '';
  let from = 0;
  for (;;) {
    const open = content.indexOf('`', from);
    const close = open < 0 ? -1 : content.indexOf('`', open + 1);
    if (close < 0) {
      outside += content.slice(from);
      break;
    }
    const code = content.slice(open + 1, close);
    if (code.length > 1 && code.startsWith(' ') && code.endsWith(' ') && code.trim().length > 0) return false;
    outside += `${content.slice(from, open)} `;
    from = close + 1;
  }
  return !MARKUP.test(outside);
}
