/**
 * Line and column for JSON problems. `JSON.parse` is fast but gives no
 * positions, so a file is parsed with it and, only when something is wrong,
 * the text is scanned again to find where: the offset from the syntax error
 * message, or the place of a value by its path (`[3, 'role']`).
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
 * Offset of the value at `path` in a valid JSON text, or of the deepest
 * existing ancestor when part of the path is missing.
 */
export function locateJsonPath(text: string, path: readonly (string | number)[]): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const skipString = (): void => {
    i++;
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') i += 2;
      else if (c === '"') {
        i++;
        return;
      } else i++;
    }
  };
  const readString = (): string => {
    const start = i;
    skipString();
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return '';
    }
  };
  const skipValue = (): void => {
    ws();
    const c = text[i];
    if (c === '"') {
      skipString();
      return;
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < text.length) {
        const d = text[i];
        if (d === '"') {
          skipString();
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return;
          }
        }
        i++;
      }
      return;
    }
    while (i < text.length && !',}] \t\n\r'.includes(text[i]!)) i++;
  };

  ws();
  let found = i;
  for (const key of path) {
    ws();
    found = i;
    if (typeof key === 'number') {
      if (text[i] !== '[') return found;
      i++;
      for (let n = 0; ; n++) {
        ws();
        if (text[i] === ']' || i >= text.length) return found;
        if (n === key) break;
        skipValue();
        ws();
        if (text[i] !== ',') return found;
        i++;
      }
    } else {
      if (text[i] !== '{') return found;
      i++;
      for (;;) {
        ws();
        if (text[i] !== '"') return found;
        const keyStart = i;
        const name = readString();
        ws();
        if (text[i] !== ':') return found;
        i++;
        ws();
        if (name === key) {
          found = keyStart;
          break;
        }
        skipValue();
        ws();
        if (text[i] !== ',') return found;
        i++;
      }
    }
  }
  ws();
  return typeof path[path.length - 1] === 'string' ? found : i;
}

/** Line and column of the value at `path` (see `locateJsonPath`). */
export function placeOf(text: string, path: readonly (string | number)[]): { line: number; column: number } {
  return lineColumn(text, locateJsonPath(text, path));
}
