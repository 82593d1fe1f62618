import { type Node as JsonNode, parseTree } from 'jsonc-parser';

/**
 * Line and column for JSON problems. `JSON.parse` is fast but gives no
 * positions, so a file is parsed with it and, only when something is wrong,
 * the text is read again to find where: the offset from the syntax error
 * message (V8's own words are kept as the reason), or the place of a value by
 * its path (`[3, 'role']`, with jsonc-parser's tree).
 */

/** 1-based line and column (in characters) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(0, offset), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: [...text.slice(lineStart, end)].length + 1 };
}

/** Where `JSON.parse` failed on `text`, and its message without the echo of the input. */
export function jsonSyntaxError(text: string, error: unknown): { line: number; column: number; reason: string } {
  const message = error instanceof Error ? error.message : String(error);
  const lineCol = /line (\d+) column (\d+)/.exec(message);
  const position = /position (\d+)/.exec(message);
  const place = lineCol
    ? { line: Number(lineCol[1]), column: Number(lineCol[2]) }
    : position
      ? lineColumn(text, Number(position[1]))
      : endOf(text);
  // V8 quotes the input (`Unexpected token 'r', "root:*:202"... is not valid JSON`): everything from the first
  // quote of the input on is dropped, and a character named that is not JSON's own punctuation, so no byte of the file is ever repeated.
  const reason = message
    .replace(/,?\s*".*$/s, '')
    .replace(/ in JSON at position \d+.*$/, '')
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/^Unexpected token '(.+)'$/s, (_, c: string) => (/^[[\]{},:]$/.test(c) ? `Unexpected token '${c}'` : 'Unexpected character'))
    .trim();
  return { ...place, reason: reason || 'invalid JSON' };
}

function endOf(text: string): { line: number; column: number } {
  return lineColumn(text, text.length);
}

/**
 * Offset of the value at `path` in a valid JSON text (of its key when the
 * path ends with a key), or of the deepest existing ancestor when part of the
 * path is missing. jsonc-parser builds the tree; only an error path pays for it.
 */
export function locateJsonPath(text: string, path: readonly (string | number)[]): number {
  let node = parseTree(text);
  if (!node) return 0;
  for (const [n, key] of path.entries()) {
    const child = childAt(node, key);
    if (!child) return node.offset;
    // A key names a property: point at the key, where a person looks for it.
    if (typeof key === 'string' && n === path.length - 1) return child.parent?.offset ?? child.offset;
    node = child;
  }
  return node.offset;
}

function childAt(node: JsonNode, key: string | number): JsonNode | undefined {
  if (typeof key === 'number') return node.type === 'array' ? node.children?.[key] : undefined;
  if (node.type !== 'object') return undefined;
  return node.children?.find((property) => property.children?.[0]?.value === key)?.children?.[1];
}

/** Line and column of the value at `path` (see `locateJsonPath`). */
export function placeOf(text: string, path: readonly (string | number)[]): { line: number; column: number } {
  return lineColumn(text, locateJsonPath(text, path));
}
