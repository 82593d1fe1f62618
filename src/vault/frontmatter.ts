import type matterType from 'gray-matter';
import { lazy, requireLazy } from '../util/lazy.js';
import { Document, isMap, isNode, isPair, isScalar, Lexer, LineCounter, parseDocument, visit } from 'yaml';

export {
  bodyStartLine,
  type FrontmatterFence,
  frontmatterFence,
  opensFrontmatter,
  opensGeneratedSummary,
  withoutFrontmatter,
} from '../text/frontmatter-fence.js';

/**
 * Frontmatter split (gray-matter) and parse (the `yaml` package, which keeps
 * node positions so errors can name the real line and column). Values are read
 * with the YAML 1.2 core schema: dates stay strings, so a `+01:00` offset is
 * never lost to a JavaScript Date.
 */

// gray-matter only splits here (loaded on first use); parsing is ours so we keep positions.
const matter = lazy(() => requireLazy('gray-matter') as typeof matterType);

/** Frontmatter languages read as data (JSON through the YAML parser, which reads JSON); `''` is a bare `---` fence. */
export const FRONTMATTER_LANGUAGES: ReadonlySet<string> = new Set(['', 'yaml', 'yml', 'json']);
/** Frontmatter larger than this (bytes of UTF-16 text, ~bytes for ASCII) is rejected unparsed. */
export const MAX_FRONTMATTER_CHARS = 64 * 1024;
/** YAML aliases expanded per file: a few are normal, the "billion laughs" needs hundreds of millions. */
export const MAX_YAML_ALIASES = 100;
/** Nesting of YAML collections (flow brackets, indentation levels, `-`/`?` indicators): the YAML composer recurses per level. */
export const MAX_YAML_DEPTH = 64;

// gray-matter picks an engine by the fence's language tag, and its default engines `eval` JavaScript (`---js`).
// The language is checked before gray-matter is called, and every engine it has is replaced by one that parses
// nothing, so no tag can reach an evaluating engine even if that check were bypassed.
const noEngine = { parse: () => ({}), stringify: () => '' };
const splitOnly = {
  engines: {
    yaml: noEngine,
    yml: noEngine,
    json: noEngine,
    javascript: noEngine,
    js: noEngine,
    coffee: noEngine,
    cson: noEngine,
    toml: noEngine,
  },
} as const;

export interface ParsedFrontmatter {
  /** The frontmatter as plain data ({} when there is none). */
  data: Record<string, unknown>;
  /** The markdown after the frontmatter. */
  body: string;
  /** 1-based line of the file where the body starts. */
  bodyLine: number;
  hasFrontmatter: boolean;
  /** Position of a frontmatter key's value in the file (1-based), for pointing errors at it. */
  positionOf(key: string): { line: number; column: number };
  /** Set when the frontmatter is not valid YAML or not a mapping, or is over a limit (`rule` and `hint` then say which). */
  error?: { line: number; column: number; reason: string; rule?: string; hint?: string };
}

/**
 * Splits and parses the frontmatter of a markdown file. Never evaluates
 * anything: a fence tagged with another language (`---js`) is an error, as
 * is frontmatter over `MAX_FRONTMATTER_CHARS`, nested deeper than
 * `MAX_YAML_DEPTH` or expanding more than `MAX_YAML_ALIASES` aliases.
 */
export function parseFrontmatter(raw: string): ParsedFrontmatter {
  // Files saved on Windows: CRLF would leave `\r` in the last frontmatter value. Line numbers are unchanged.
  const crlf = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  // gray-matter drops a BOM before splitting: so do we, so the language check sees the fence.
  const text = crlf.charCodeAt(0) === 0xfeff ? crlf.slice(1) : crlf;
  const nothing = { data: {}, body: '', bodyLine: 1, hasFrontmatter: true, positionOf: () => ({ line: 1, column: 1 }) };
  const file = splitFence(text);
  if ('error' in file) return { ...nothing, error: file.error };
  const hasFrontmatter = file.matter.length > 0 || /^---\n/.test(text);
  const bodyLine = hasFrontmatter ? lineCount(file.matter) + 3 : 1;
  const deep = yamlDepthProblem(file.matter);
  if (deep) {
    const reason = `frontmatter nested deeper than ${MAX_YAML_DEPTH} levels`;
    const hint = 'flatten the frontmatter: memories need a few `key: value` lines';
    return { ...nothing, bodyLine, error: { line: deep.line, column: 1, reason, rule: 'memory/frontmatter-depth', hint } };
  }
  const lineCounter = new LineCounter();
  // `file.matter` starts right after the opening `---`, so its line N is the file's line N.
  const doc = parseDocument(file.matter, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const positionOf = keyPositions(doc, lineCounter);
  const value = frontmatterData(doc, lineCounter);
  if ('error' in value) return { data: {}, body: file.content, bodyLine, hasFrontmatter, positionOf, error: value.error };
  return { data: value.data, body: file.content, bodyLine, hasFrontmatter, positionOf };
}

type FrontmatterError = NonNullable<ParsedFrontmatter['error']>;

/**
 * The frontmatter text and the body, split by gray-matter (without parsing:
 * `splitOnly`), or why not: a fence tagged with a language other than YAML or
 * JSON, a broken fence, frontmatter past `MAX_FRONTMATTER_CHARS`.
 */
function splitFence(text: string): matterType.GrayMatterFile<string> | { error: FrontmatterError } {
  const language = fenceLanguage(text);
  if (language !== undefined && !FRONTMATTER_LANGUAGES.has(language.toLowerCase())) {
    const hint = 'frontmatter is data: open it with a plain `---` line and write YAML (or `---json`); it is never run as code';
    const reason = `unsupported frontmatter language ${JSON.stringify(language)}`;
    return { error: { line: 1, column: 1, reason, rule: 'memory/frontmatter-language', hint } };
  }
  let file: matterType.GrayMatterFile<string>;
  try {
    file = matter()(text, splitOnly as never);
  } catch (error) {
    // A fence line with no newline after it (`---yaml` and nothing else): gray-matter cuts the tag short and finds no engine.
    return { error: { line: 1, column: 1, reason: `invalid frontmatter fence: ${(error as Error).message}` } };
  }
  if (file.matter.length > MAX_FRONTMATTER_CHARS) {
    const reason = `frontmatter too large: ${file.matter.length} characters (limit ${MAX_FRONTMATTER_CHARS})`;
    const hint = 'keep frontmatter to a few fields; put text in the body (is the closing `---` line missing?)';
    return { error: { line: 1, column: 1, reason, rule: 'memory/too-large', hint } };
  }
  return file;
}

/** Where a top-level key's value (else the key) sits in the file; line 1 column 1 for a key that is not there. */
function keyPositions(doc: Document, lineCounter: LineCounter): (key: string) => { line: number; column: number } {
  return (key) => {
    const node = isMap(doc.contents) ? doc.contents.get(key, true) : undefined;
    const pair = isMap(doc.contents)
      ? doc.contents.items.find((item) => isNode(item.key) && (item.key as { value?: unknown }).value === key)
      : undefined;
    const target = isNode(node) ? node : isNode(pair?.key) ? pair.key : undefined;
    if (target?.range) {
      const pos = lineCounter.linePos(target.range[0]);
      return { line: pos.line, column: pos.col };
    }
    return { line: 1, column: 1 };
  };
}

/**
 * The YAML document as data, or the first reason it is none: a YAML error,
 * more aliases than `MAX_YAML_ALIASES` expand to (the `yaml` package refuses,
 * with a ReferenceError naming resource exhaustion), or a value that is not a
 * mapping.
 */
function frontmatterData(doc: Document, lineCounter: LineCounter): { data: Record<string, unknown> } | { error: FrontmatterError } {
  const firstError = doc.errors[0];
  if (firstError) {
    const pos = lineCounter.linePos(firstError.pos[0]);
    return { error: { line: pos.line, column: pos.col, reason: `invalid YAML frontmatter: ${firstError.message.split('\n')[0]}` } };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    let at: { line: number; column: number } | undefined;
    visit(doc, {
      Alias(_, node) {
        const pos = lineCounter.linePos(node.range?.[0] ?? 0);
        at = { line: pos.line, column: pos.col };
        return visit.BREAK;
      },
    });
    const reason = at
      ? `frontmatter expands too many YAML aliases (limit ${MAX_YAML_ALIASES})`
      : `invalid YAML frontmatter: ${(error as Error).message}`;
    at ??= { line: 1, column: 1 };
    const hint = 'write the values out instead of `&anchor`/`*alias` references';
    return { error: { ...at, reason, rule: 'memory/frontmatter', hint } };
  }
  if (value !== null && value !== undefined && (typeof value !== 'object' || Array.isArray(value))) {
    return { error: { line: 2, column: 1, reason: 'frontmatter must be a mapping of `key: value` lines' } };
  }
  return { data: (value ?? {}) as Record<string, unknown> };
}

/**
 * The markdown after the frontmatter, as `parseFrontmatter` gives it, without
 * parsing the YAML: for a file already read and checked, whose text a stage
 * needs (a summary's YAML is ~90 % of the cost of reading it back).
 */
export function frontmatterBody(raw: string): string {
  const crlf = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  const text = crlf.charCodeAt(0) === 0xfeff ? crlf.slice(1) : crlf;
  return matter()(text, splitOnly as never).content;
}

/**
 * Serialises frontmatter and body into a markdown file. Keys keep the order
 * given; short lists and `{id, sha256}` records are written in flow style so
 * the frontmatter stays readable.
 */
export function stringifyFrontmatter(data: Record<string, unknown>, body: string): string {
  // No anchors/aliases: a generated file must read the same in any YAML tool.
  const doc = new Document(data, { aliasDuplicateObjects: false });
  visit(doc, {
    Collection(_, node, path) {
      // Nested collections of scalars (`tags`, `generator`, each source) read best on one line.
      if (path.length > 1 && node.items.every((item) => (isPair(item) ? isScalar(item.value) : isScalar(item)))) node.flow = true;
    },
  });
  return `---\n${doc.toString({ lineWidth: 0 })}---\n${body}`;
}

function lineCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) count++;
  return count;
}

/** The language tag of the opening fence (`---js` → `js`, `---` → `''`), or undefined when the text has no frontmatter fence. */
function fenceLanguage(text: string): string | undefined {
  // The same test gray-matter makes: `---` not followed by a fourth `-`; the tag is the rest of the first line.
  if (!text.startsWith('---') || text.charAt(3) === '-') return undefined;
  const end = text.indexOf('\n');
  return (end === -1 ? text.slice(3) : text.slice(3, end)).trim();
}

/**
 * The first line where YAML nesting passes `MAX_YAML_DEPTH`, measured on the
 * lexer's tokens (the lexer is iterative; the composer and `toJS` recurse per
 * level and overflow the stack on a few thousand): open flow brackets, plus
 * the stack of indentation levels, plus the `-`/`?` indicators on the line.
 */
function yamlDepthProblem(source: string): { line: number } | undefined {
  let flow = 0;
  let line = 1;
  let atLineStart = true;
  let indicators = 0;
  const indents: number[] = [];
  for (const token of new Lexer().lex(source)) {
    if (token === '\n' || token === '\r\n') {
      line++;
      atLineStart = true;
      indicators = 0;
      continue;
    }
    if (atLineStart) {
      atLineStart = false;
      const indent = /^ +$/.test(token) ? token.length : 0;
      while (indents.length > 0 && indents[indents.length - 1]! > indent) indents.pop();
      if (indents.length === 0 || indents[indents.length - 1]! < indent) indents.push(indent);
    }
    if (token === '[' || token === '{') flow++;
    else if (token === ']' || token === '}') flow = Math.max(0, flow - 1);
    else if (token === '-' || token === '?') indicators++;
    if (flow + indents.length + indicators > MAX_YAML_DEPTH) return { line };
  }
  return undefined;
}
