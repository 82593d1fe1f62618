import type { Citation, Quote } from './citation-model.js';
import { bodyStartLine } from '../text/frontmatter-fence.js';

/**
 * Finds what a memory's text cites: repository paths (with a line or range,
 * and a symbol named next to them), commit ids, branches, issues and pull
 * requests. Pure and cheap (regular expressions over the lines, no markdown
 * parse): it runs for every memory the loader reads. The rules lean towards
 * missing a citation over inventing one: a path needs a file extension memvault
 * knows or a `/` in backticks, a commit id needs the word "commit" (or
 * backticks) near it, a branch the word "branch".
 */

/** More than this many citations in one memory are not kept (a pasted file listing is not a set of claims). */
export const MAX_CITATIONS = 40;

/** Characters of one line that are looked at for citations. */
export const MAX_LINE_CHARS = 8_000;

/** File extensions that make a bare name (`README.md`) or a slashed one (`src/a.ts`) a path outside backticks. */
const EXTENSIONS = new Set(
  (
    'ts tsx js jsx mjs cjs mts cts json jsonc md mdx yaml yml toml py pyi go rs java kt kts scala rb php c h cc cpp hpp cs fs swift ' +
    'm mm sh bash zsh fish ps1 sql css scss sass less html htm vue svelte astro lock txt xml gradle proto tf hcl ini cfg conf env ' +
    'dockerfile graphql gql ex exs erl hs ml clj lua dart r jl nim zig vim el properties csv'
  ).split(' '),
);

/** A path-like token: letters, digits and `._-@+/`, optionally a line suffix. */
const PATH_TOKEN = /(?<![\w@/.:-])((?:\.{1,2}\/)?[\w@+-][\w.@+-]*(?:\/[\w.@+-]+)*\/?)((?::\d+(?:-\d+)?)|(?:#L\d+(?:-L?\d+)?))?(?![\w/])/g;
const BACKTICKED = /`([^`\n]{1,300})`/g;
const COMMIT_WORD = /\b(?:commit|commits|sha|revision|rev|reverted|revert|cherry-pick(?:ed)?|fixed in|landed in|introduced in)\b/i;
const HEX = /(?<![\w/])([0-9a-f]{7,40})(?![\w/])/g;
const BRANCH = /\bbranch(?:es)?\s+(?:`([^`\s]{1,100})`|'([^'\s]{1,100})'|"([^"\s]{1,100})"|([A-Za-z0-9][\w./-]{0,99}))/gi;
const ISSUE_URL = /https?:\/\/github\.com\/([\w.-]+\/[\w.-]+)\/(?:issues|pull)\/(\d{1,7})/g;
const ISSUE_REF = /(?<![\w&/#])((?:[\w.-]+\/[\w.-]+)?#(\d{1,7}))(?!\w)/g;
const ISSUE_WORD = /\b(?:PR|pull request|issue|MR)\s+(\d{1,7})\b/gi;
const SYMBOL_BEFORE = /`([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(?:\(\))?`\s+(?:in|from|of|at|inside|defined in)\s+$/;
const SYMBOL_AFTER = /^\s*\(`([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(?:\(\))?`\)/;
/** Words after `branch` that are prose, not a name. */
const NOT_BRANCHES = new Set([
  'is',
  'was',
  'and',
  'or',
  'to',
  'of',
  'the',
  'a',
  'an',
  'that',
  'which',
  'name',
  'names',
  'protection',
  'per',
  'with',
  'for',
  'in',
  'on',
  'off',
  'from',
  'into',
  'it',
  'this',
  'has',
  'had',
  'will',
  'should',
  'can',
  'must',
]);

/**
 * The citations of a memory file's body. `firstLine`: the file line the body
 * starts on, so each citation names its line in the file.
 *
 * @example
 *   findCitations('The retry lives in `src/net/retry.ts:40-52` (commit 3f2a1c0).', 5);
 *   // [{ kind: 'path', target: 'src/net/retry.ts', lines: [40, 52], line: 5 }, { kind: 'commit', target: '3f2a1c0', line: 5 }]
 */
export function findCitations(body: string, firstLine = 1): Citation[] {
  const found: Citation[] = [];
  const seen = new Set<string>();
  const add = (citation: Citation): void => {
    const key = `${citation.kind}\u0000${citation.target}\u0000${citation.lines?.join('-') ?? ''}\u0000${citation.symbol ?? ''}`;
    if (seen.has(key) || found.length >= MAX_CITATIONS) return;
    seen.add(key);
    found.push(citation);
  };
  const lines = body.split('\n');
  let fenced = false;
  for (let i = 0; i < lines.length && found.length < MAX_CITATIONS; i++) {
    // A line is read up to MAX_LINE_CHARS: every match is checked against the spans taken before it, so an endless
    // line (a pasted log, a 900 KB paragraph) would cost its square.
    const text = lines[i]!.length > MAX_LINE_CHARS ? lines[i]!.slice(0, MAX_LINE_CHARS) : lines[i]!;
    if (/^\s*(```|~~~)/.test(text)) {
      fenced = !fenced;
      continue;
    }
    // A code block quotes code: hex and names in it are not claims about the repository.
    if (fenced) continue;
    const scan: LineScan = { text, line: firstLine + i, taken: [], add };
    // Paths and branch names in backticks first: a backticked span is one token.
    branchCitations(scan);
    backtickedPathCitations(scan);
    barePathCitations(scan);
    commitAndIssueCitations(scan);
  }
  attachQuotes(lines, found, firstLine);
  return found;
}

/** One line being read: its text and number, the spans matched so far (a later match inside one is skipped), the sink. */
interface LineScan {
  text: string;
  line: number;
  taken: [number, number][];
  add: (citation: Citation) => void;
}

const isTaken = (scan: LineScan, start: number, end: number): boolean => scan.taken.some(([a, b]) => start < b && end > a);

/** Branch names after the word branch (backticked, quoted or bare); prose words and a bare word cut at an apostrophe left out. */
function branchCitations(scan: LineScan): void {
  const { text, line } = scan;
  for (const m of text.matchAll(BRANCH)) {
    const name = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? '').replace(/[.,;:!?)]+$/, '');
    if (!name || NOT_BRANCHES.has(name.toLowerCase())) continue;
    // "the branch didn't build": a bare word cut at an apostrophe is prose, not a name.
    if (m[4] !== undefined && /^['’]/.test(text.slice(m.index + m[0].length))) continue;
    scan.add({ kind: 'branch', target: name, line });
    const at = m.index + m[0].lastIndexOf(name);
    scan.taken.push([at, at + name.length]);
  }
}

/** Paths in backticks, with the symbol named just before or after them. */
function backtickedPathCitations(scan: LineScan): void {
  const { text, line } = scan;
  for (const m of text.matchAll(BACKTICKED)) {
    const inner = m[1]!.trim();
    const start = m.index;
    const end = start + m[0].length;
    if (isTaken(scan, start + 1, end - 1)) continue;
    const path = pathOf(inner, true);
    if (!path) continue;
    scan.taken.push([start, end]);
    const before = SYMBOL_BEFORE.exec(text.slice(Math.max(0, start - 120), start))?.[1];
    const after = SYMBOL_AFTER.exec(text.slice(end, end + 120))?.[1];
    scan.add({ ...path, line, ...symbolOf(before ?? after) });
  }
}

/** Bare path tokens, outside URLs and e-mail addresses, with the symbol named just before them. */
function barePathCitations(scan: LineScan): void {
  const { text, line } = scan;
  for (const m of text.matchAll(PATH_TOKEN)) {
    // Nearly every word is a token; a path has a `.` (its extension) or a `/` (pathOf), so the rest are skipped here.
    if (!m[0].includes('.') && !m[0].includes('/')) continue;
    const start = m.index;
    const end = start + m[0].length;
    if (isTaken(scan, start, end) || /:\/\/$/.test(text.slice(Math.max(0, start - 3), start))) continue;
    // Inside a URL or an e-mail address: not a repository path. Only the run of non-space characters before the
    // token is looked at (testing the whole line before it cost a 900 KB one-line memory minutes: quadratic).
    if (/https?:\/\/|www\./.test(runBefore(text, start))) continue;
    const path = pathOf(m[0], false);
    if (!path) continue;
    scan.taken.push([start, end]);
    const before = SYMBOL_BEFORE.exec(text.slice(Math.max(0, start - 120), start))?.[1];
    scan.add({ ...path, line, ...symbolOf(before) });
  }
}

/**
 * Issue URLs, commit hashes (backticked, or after a word such as commit; with
 * a letter and a digit), `#12` references (not a heading's `#`) and issue words.
 */
function commitAndIssueCitations(scan: LineScan): void {
  const { text, line } = scan;
  for (const m of text.matchAll(ISSUE_URL)) {
    scan.add({ kind: 'issue', target: `${m[1]}#${m[2]}`, line });
    scan.taken.push([m.index, m.index + m[0].length]);
  }
  for (const m of text.matchAll(HEX)) {
    const sha = m[1]!;
    if (isTaken(scan, m.index, m.index + sha.length) || !/[a-f]/.test(sha) || !/\d/.test(sha)) continue;
    const ticked = text[m.index - 1] === '`' && text[m.index + sha.length] === '`';
    const near = text.slice(Math.max(0, m.index - 40), m.index);
    if (!ticked && !COMMIT_WORD.test(near)) continue;
    scan.add({ kind: 'commit', target: sha, line });
  }
  // A heading line (`# Title`) is not an issue reference; `#12` after text is.
  if (!/^\s{0,3}#{1,6}\s/.test(text) || /\S#\d/.test(text)) {
    for (const m of text.matchAll(ISSUE_REF))
      if (!isTaken(scan, m.index, m.index + m[1]!.length)) scan.add({ kind: 'issue', target: m[1]!, line });
  }
  for (const m of text.matchAll(ISSUE_WORD)) scan.add({ kind: 'issue', target: `#${m[1]}`, line });
}

/** Lines of a fenced block kept as a quote: a pasted file is not a quote of a few lines. */
export const MAX_QUOTE_LINES = 40;
/** Characters of a quoted line kept (a prefix is still found where the whole line is). */
const MAX_QUOTE_LINE_CHARS = 200;
/** Inline code spans shorter than this are not quotes (`id`, `ok` are anywhere). */
export const MIN_SPAN_CHARS = 4;
const MAX_SPANS = 10;
const FENCE = /^\s*(`{3,}|~{3,})/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])\s/;
const HEADING = /^\s{0,3}#{1,6}\s/;
/** A line of a quote that only says "more here": `...`, `…`, `// ...`, `# …`, `/* ... *\/`. */
const ELLIPSIS = /^(?:(?:\/\/|#|--|\/\*)\s*)?(?:\.{3}|…)(?:\s*\*\/)?$/;

/** A quote's line as it is compared: whitespace runs one space, trimmed (indentation and reflowing do not count). */
export function quoteLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Gives a line-ranged path citation the snippet its memory quotes (`Citation.quote`). The citation must be the only
 * line-ranged path citation of its block (a paragraph or a list item: up to a blank line, a heading, the next list
 * item or a fence). The quote is the fenced code block right after that block (at most one blank line between);
 * without one, the inline code spans of the block that are not citations themselves and have at least
 * `MIN_SPAN_CHARS` characters.
 */
function attachQuotes(lines: readonly string[], found: Citation[], firstLine: number): void {
  if (!found.some((c) => c.kind === 'path' && c.lines)) return;
  type Segment = { fence: false; from: number; to: number } | { fence: true; from: number; to: number };
  // The body cut into prose blocks and fenced blocks ([from, to) line indexes; a fence's without its fence lines).
  const segments: Segment[] = [];
  let prose: number | undefined;
  const closeProse = (at: number): void => {
    if (prose !== undefined) segments.push({ fence: false, from: prose, to: at });
    prose = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const fence = FENCE.exec(text);
    if (fence) {
      closeProse(i);
      let end = i + 1;
      while (end < lines.length && !lines[end]!.trimStart().startsWith(fence[1]!)) end++;
      segments.push({ fence: true, from: i + 1, to: end });
      i = end;
      continue;
    }
    if (text.trim() === '') closeProse(i);
    else if (HEADING.test(text)) {
      closeProse(i);
      segments.push({ fence: false, from: i, to: i + 1 });
    } else if (LIST_ITEM.test(text) || prose === undefined) {
      closeProse(i);
      prose = i;
    }
  }
  closeProse(lines.length);
  const branches = new Set(found.filter((c) => c.kind === 'branch').map((c) => c.target));
  segments.forEach((block, index) => {
    if (block.fence) return;
    const inBlock = found.filter((c) => c.kind === 'path' && c.lines && c.line - firstLine >= block.from && c.line - firstLine < block.to);
    const distinct = new Set(inBlock.map((c) => `${c.target}:${c.lines!.join('-')}`));
    if (distinct.size !== 1) return;
    const next = segments[index + 1];
    const gap = next ? lines.slice(block.to, next.from - (next.fence ? 1 : 0)).length : 0;
    const quote =
      next?.fence && gap <= 1 ? blockQuote(lines.slice(next.from, next.to)) : spanQuote(lines.slice(block.from, block.to), branches);
    if (quote) inBlock[0]!.quote = quote;
  });
}

function blockQuote(block: readonly string[]): Quote | undefined {
  const kept = block.slice(0, MAX_QUOTE_LINES);
  const text = kept.map((l) => quoteLine(l).slice(0, MAX_QUOTE_LINE_CHARS)).filter((l) => l !== '' && !ELLIPSIS.test(l));
  return text.length > 0 ? { kind: 'block', text, height: kept.length } : undefined;
}

function spanQuote(block: readonly string[], branches: ReadonlySet<string>): Quote | undefined {
  const spans = new Set<string>();
  for (const line of block)
    for (const m of line.slice(0, MAX_LINE_CHARS).matchAll(BACKTICKED)) {
      const inner = quoteLine(m[1]!).replace(/\(\)$/, '');
      // A path, a commit id or a branch name in backticks is a citation, not a quote of the file.
      if (inner.length < MIN_SPAN_CHARS || pathOf(inner, true) || /^[0-9a-f]{7,40}$/.test(inner) || branches.has(inner)) continue;
      spans.add(inner.slice(0, MAX_QUOTE_LINE_CHARS));
    }
  return spans.size > 0 ? { kind: 'spans', text: [...spans].slice(0, MAX_SPANS), height: 1 } : undefined;
}

/** The characters right before `start` up to the previous whitespace (at most 2,048: a URL is shorter). */
function runBefore(text: string, start: number): string {
  let from = start;
  while (from > 0 && start - from < 2048 && !/\s/.test(text[from - 1]!)) from--;
  return text.slice(from, start);
}

function symbolOf(symbol: string | undefined): { symbol?: string } {
  return symbol ? { symbol } : {};
}

/**
 * A path citation from a token, or undefined when it does not look like a
 * repository path. In backticks a slashed name is enough (`src/net`); outside,
 * the last part needs a known extension.
 */
function pathOf(raw: string, backticked: boolean): Omit<Citation, 'line'> | undefined {
  const m = /^(.*?)(?::(\d+)(?:-(\d+))?|#L(\d+)(?:-L?(\d+))?)?$/.exec(raw);
  if (!m) return undefined;
  let target = m[1]!.replace(/[.,;:!?)]+$/, '');
  const first = Number(m[2] ?? m[4] ?? 0);
  const last = Number(m[3] ?? m[5] ?? first);
  if (!target || /\s/.test(target) || target.length > 300) return undefined;
  if (/^[a-z][\w+.-]*:/i.test(target) || target.includes('://') || (target.includes('@') && !target.includes('/'))) return undefined;
  if (target.startsWith('/') || target.startsWith('~') || target.split('/').includes('..')) return undefined;
  target = target.replace(/^\.\//, '');
  const parts = target.split('/');
  const name = parts[parts.length - 1]!;
  const folder = target.endsWith('/');
  const extension = /\.([A-Za-z0-9]{1,12})$/.exec(name)?.[1]?.toLowerCase();
  const known = extension !== undefined && EXTENSIONS.has(extension);
  const slashed = parts.length > 1;
  // `1.2.3`, `e.g.`, `v2.0`: numbers and abbreviations, not files.
  if (/^v?\d+(\.\d+)+$/.test(name) || /^(e\.g|i\.e|etc|vs)\.?$/i.test(name)) return undefined;
  const isPath = known || (folder && slashed && parts.length > 1) || (backticked && slashed && /^[\w.@+-]+(\/[\w.@+-]+)+\/?$/.test(target));
  if (!isPath) return undefined;
  // A backticked `a/b` with neither extension nor trailing slash is a folder or an extensionless file: kept as written.
  const result: Omit<Citation, 'line'> = { kind: 'path', target };
  if (first > 0 && !folder) result.lines = [first, Math.max(first, last)];
  return result;
}

/** The citations of a memory file whose (trimmed) body is `body`, each at its line in the file. */
export function citationsOfBody(bytes: Uint8Array, body: string): Citation[] {
  if (body.length === 0) return [];
  return findCitations(body, bodyStartLine(Buffer.from(bytes).toString('utf8'), body) ?? 1);
}
