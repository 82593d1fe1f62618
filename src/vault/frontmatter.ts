import type matterType from 'gray-matter';
import { lazy, requireLazy } from '../util/lazy.js';
import { Document, isMap, isNode, isPair, isScalar, LineCounter, parseDocument, visit } from 'yaml';

/**
 * Frontmatter split (gray-matter) and parse (the `yaml` package, which keeps
 * node positions so errors can name the real line and column). Values are read
 * with the YAML 1.2 core schema: dates stay strings, so a `+01:00` offset is
 * never lost to a JavaScript Date.
 */

// gray-matter only splits here (loaded on first use); parsing is ours so we keep positions.
const matter = lazy(() => requireLazy('gray-matter') as typeof matterType);
const splitOnly = { engines: { yaml: { parse: () => ({}), stringify: () => '' } } } as const;

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
  /** Set when the frontmatter is not valid YAML or not a mapping. */
  error?: { line: number; column: number; reason: string };
}

/** Splits and parses the frontmatter of a markdown file. */
export function parseFrontmatter(raw: string): ParsedFrontmatter {
  // Files saved on Windows: CRLF would leave `\r` in the last frontmatter value. Line numbers are unchanged.
  const text = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  const file = matter()(text, splitOnly as never);
  const hasFrontmatter = file.matter.length > 0 || /^\uFEFF?---\r?\n/.test(text);
  const lineCounter = new LineCounter();
  // `file.matter` starts right after the opening `---`, so its line N is the file's line N.
  const doc = parseDocument(file.matter, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const bodyLine = hasFrontmatter ? lineCount(file.matter) + 3 : 1;
  const positionOf = (key: string): { line: number; column: number } => {
    const node = isMap(doc.contents) ? doc.contents.get(key, true) : undefined;
    const pair = isMap(doc.contents) ? doc.contents.items.find((item) => isNode(item.key) && (item.key as { value?: unknown }).value === key) : undefined;
    const target = isNode(node) ? node : isNode(pair?.key) ? pair.key : undefined;
    if (target?.range) {
      const pos = lineCounter.linePos(target.range[0]);
      return { line: pos.line, column: pos.col };
    }
    return { line: 1, column: 1 };
  };
  const firstError = doc.errors[0];
  if (firstError) {
    const pos = lineCounter.linePos(firstError.pos[0]);
    return {
      data: {},
      body: file.content,
      bodyLine,
      hasFrontmatter,
      positionOf,
      error: { line: pos.line, column: pos.col, reason: `invalid YAML frontmatter: ${firstError.message.split('\n')[0]}` },
    };
  }
  const value: unknown = doc.toJS();
  if (value !== null && value !== undefined && (typeof value !== 'object' || Array.isArray(value))) {
    return { data: {}, body: file.content, bodyLine, hasFrontmatter, positionOf, error: { line: 2, column: 1, reason: 'frontmatter must be a mapping of `key: value` lines' } };
  }
  return { data: (value ?? {}) as Record<string, unknown>, body: file.content, bodyLine, hasFrontmatter, positionOf };
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
