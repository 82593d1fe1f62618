import type { HeadingSpan } from './markdown.js';
import type { Prose } from './sentences.js';

/**
 * Reads the markdown a summarizer writes (`# title`, `## Section`, `- bullet`,
 * `  - nested bullet`, one-line paragraphs) without remark: its prose blocks
 * and top-level heading spans, exactly as `proseOf(parseMarkdown(text))` and
 * `headingSpans(parseMarkdown(text))` give them. Every summary a build writes
 * is parsed so the tier above reads it parsed, and remark over it was ~5 % of
 * a cold build's CPU (issue 29).
 *
 * Only a strict subset of CommonMark is read here, where the answer is
 * certain: anything else (a merge of memories as they were written, emphasis,
 * links, escapes, HTML, entities, code fences, indented or lazy lines, …)
 * returns undefined and the caller parses the text with remark. Inline, only
 * plain text, single-backtick code spans and `**labels**` between blanks.
 * test/vault/generated-markdown.test.ts compares it with remark.
 */
export function readGeneratedMarkdown(text: string): { prose: Prose[]; headings: HeadingSpan[] } | undefined {
  if (text.length === 0) return undefined;
  const prose: Prose[] = [];
  const headings: HeadingSpan[] = [];
  // What the previous line was: a lazy or interrupting line after a bullet or a paragraph is left to remark.
  let previous: 'start' | 'blank' | 'heading' | 'bullet' | 'paragraph' = 'start';
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    if (line.length === 0) {
      if (previous === 'start') return undefined;
      previous = 'blank';
    } else if (line.charCodeAt(0) === HASH) {
      const heading = headingOf(line);
      if (!heading || previous === 'bullet' || previous === 'paragraph') return undefined;
      prose.push({ heading: heading.depth, text: heading.text });
      headings.push([start, end, heading.depth, start + heading.from, end]);
      previous = 'heading';
    } else if (line.startsWith('- ') || line.startsWith('  - ')) {
      const nested = line.charCodeAt(0) === SPACE;
      if (nested && previous !== 'bullet') return undefined;
      if (previous === 'paragraph') return undefined;
      const content = line.slice(nested ? 4 : 2);
      const block = opensBlock(content) ? undefined : inlineText(content);
      if (block === undefined) return undefined;
      prose.push({ block });
      previous = 'bullet';
    } else {
      if (previous === 'bullet' || previous === 'paragraph' || opensBlock(line)) return undefined;
      const block = inlineText(line);
      if (block === undefined) return undefined;
      prose.push({ block });
      previous = 'paragraph';
    }
    start = end + 1;
  }
  return { prose, headings };
}

const HASH = 35;
const SPACE = 32;
const STAR = 42;
const BACKTICK = 96;

/** An ATX heading `#` to `######`, a space, then text that neither starts nor ends with a blank or a `#`. */
function headingOf(line: string): { depth: number; text: string; from: number } | undefined {
  let depth = 0;
  while (depth < line.length && line.charCodeAt(depth) === HASH) depth++;
  if (depth > 6 || line.charCodeAt(depth) !== SPACE) return undefined;
  const content = line.slice(depth + 1);
  if (content.endsWith('#') || opensBlock(content)) return undefined;
  const text = inlineText(content);
  return text === undefined ? undefined : { depth, text: text.trim(), from: depth + 1 };
}

/**
 * Whether a line's content could open a block of its own, or start or end
 * with a blank (which CommonMark strips or reads as indentation): left to remark.
 */
function opensBlock(content: string): boolean {
  if (content.length === 0) return true;
  const first = content.charCodeAt(0);
  const last = content.charCodeAt(content.length - 1);
  if (first === SPACE || last === SPACE) return true;
  // Headings, quotes, list markers, setext and table-like lines, fences, HTML.
  if ('#>-+=|~<'.includes(content[0]!)) return true;
  if (first === STAR && content.charCodeAt(1) !== STAR) return true;
  return /^\d{1,9}[.)](?: |$)/.test(content);
}

/**
 * The text `phrasingText` makes of a line's inline content, or undefined when
 * the line holds anything but plain text, single-backtick code spans and
 * `**bold**` runs opened after a blank (or the start) and closed before one
 * (or the end).
 */
function inlineText(content: string): string | undefined {
  let out = '';
  let plainFrom = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    if (c === BACKTICK) {
      const close = content.indexOf('`', i + 1);
      if (close <= i + 1 || content.charCodeAt(i + 1) === BACKTICK || content.charCodeAt(close + 1) === BACKTICK) return undefined;
      out += content.slice(plainFrom, i) + `\`${codeValue(content.slice(i + 1, close))}\``;
      i = close;
      plainFrom = close + 1;
    } else if (c === STAR) {
      const inner = boldInner(content, i);
      if (inner === undefined) return undefined;
      out += content.slice(plainFrom, i) + inner;
      i += inner.length + 3;
      plainFrom = i + 1;
    } else if (UNSAFE.has(c)) return undefined;
  }
  return out + content.slice(plainFrom);
}

/** Characters that may start or end some inline construct (escapes, emphasis, links, HTML, entities), or that CommonMark rewrites. */
const UNSAFE = new Set([...'\\_[]<&\t\r\0'].map((ch) => ch.charCodeAt(0)));

/** A code span's content: one blank off each end when both ends have one and it is not all blanks (CommonMark 6.1). */
function codeValue(content: string): string {
  if (content.length >= 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim().length > 0) return content.slice(1, -1);
  return content;
}

/** The text of `**text**` at `at`, opened after a blank or the start and closed before one or the end; else undefined. */
function boldInner(content: string, at: number): string | undefined {
  if (at > 0 && content.charCodeAt(at - 1) !== SPACE) return undefined;
  if (content.charCodeAt(at + 1) !== STAR) return undefined;
  const close = content.indexOf('**', at + 2);
  if (close <= at + 2) return undefined;
  const inner = content.slice(at + 2, close);
  if (inner.startsWith(' ') || inner.endsWith(' ') || inner.includes('*') || inner.includes('`')) return undefined;
  for (let i = 0; i < inner.length; i++) if (UNSAFE.has(inner.charCodeAt(i))) return undefined;
  const after = content.charCodeAt(close + 2);
  if (close + 2 < content.length && after !== SPACE) return undefined;
  return inner;
}
