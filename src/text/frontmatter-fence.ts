/**
 * The frontmatter fence of a markdown file: where the block lies, without
 * parsing it. Below vault/ so the text helpers (topics) can skip a block too;
 * vault/frontmatter.ts re-exports it next to the parser.
 */

/** Where a file's frontmatter block lies (offsets into the text given), as `frontmatterFence` finds it. */
export interface FrontmatterFence {
  /** The opening fence line with its line break (`---\n`, `---yaml\r\n`); a BOM before it is not included. */
  open: string;
  /** Offset of the frontmatter text (just after the opening fence line). */
  matterStart: number;
  /** Offset of the closing `---` line: the frontmatter text is `text.slice(matterStart, closeStart)`. */
  closeStart: number;
  /** Offset just past the closing fence line and its line break: where the body starts. */
  bodyStart: number;
  /** The frontmatter text, each line with its line break. */
  matter: string;
}

// The opening fence: `---` (not a fourth `-`), an optional language tag, spaces; then a closing `---` line.
const FENCE_OPEN = /^\uFEFF?---([A-Za-z]*)[ \t]*\r?\n/;
const FENCE_CLOSE = /^---[ \t]*(?:\r?\n|$)/m;

/**
 * The one frontmatter fence finder for code that needs the block's place
 * without parsing it (a cheap test before parsing, a body without its
 * frontmatter, an edit that keeps every other byte): a first line `---`
 * (after a BOM, with an optional language tag) and the next line that is
 * `---`, LF or CRLF, trailing spaces allowed. Undefined when the text opens no
 * fence or the fence is not closed. `parseFrontmatter` reads files.
 *
 * @example
 *   frontmatterFence('---\ntitle: A\n---\nBody')?.bodyStart // 17
 */
export function frontmatterFence(text: string): FrontmatterFence | undefined {
  const open = FENCE_OPEN.exec(text);
  if (!open) return undefined;
  const matterStart = open[0].length;
  // An empty block (`---\n---\n`): the closing fence is the line right after the opening one.
  const rest = text.slice(matterStart);
  const close = FENCE_CLOSE.exec(rest);
  if (!close) return undefined;
  const closeStart = matterStart + close.index;
  return {
    open: text.charCodeAt(0) === 0xfeff ? open[0].slice(1) : open[0],
    matterStart,
    closeStart,
    bodyStart: closeStart + close[0].length,
    matter: text.slice(matterStart, closeStart),
  };
}

/** True when the text's first line opens a frontmatter fence (closed or not). */
export function opensFrontmatter(text: string): boolean {
  return FENCE_OPEN.test(text);
}

/** The text without its frontmatter block (unchanged when it has none). */
export function withoutFrontmatter(text: string): string {
  const fence = frontmatterFence(text);
  return fence ? text.slice(fence.bodyStart) : text;
}

/** True when a file's first bytes open a generated summary: every summary memvault writes starts `---\nmemvault: summary`. */
export function opensGeneratedSummary(head: string): boolean {
  return /^---\r?\nmemvault:\s*['"]?summary['"]?\s*\r?\n/.test(head);
}

/**
 * The 1-based line of a file's text that its trimmed body starts on (frontmatter counted, as `path:line` labels and
 * citations give it), or undefined when the text does not hold the body. Line breaks are read as `frontmatterBody`
 * reads them; the last occurrence is the body's own (only whitespace follows a trimmed body).
 */
export function bodyStartLine(fileText: string, body: string): number | undefined {
  const text = fileText.includes('\r') ? fileText.replace(/\r\n?/g, '\n') : fileText;
  const at = text.lastIndexOf(body);
  if (at < 0) return undefined;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
