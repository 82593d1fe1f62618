import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longFunctions, longFunctionsIn } from './function-length.js';

/**
 * A ratchet on function length (issue 28: "no function over ~80 lines"). A
 * function body over LIMIT lines fails here unless it is on ALLOWED with at
 * least its current length; an allowed one that grows fails too, and one
 * that got short enough must leave the list. So the list can only shrink:
 * split a long function into named pieces, then delete its line here.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LIMIT = 80;

/** The long functions still left: `file › name` → body lines today (a ceiling). None since 2026-11-28: keep it so. */
const ALLOWED: ReadonlyMap<string, number> = new Map<string, number>([]);

describe('function length', () => {
  const found = longFunctions(root, LIMIT);

  it(`has no function body over ${LIMIT} lines outside the allowlist`, () => {
    const unlisted = found
      .filter(({ key }) => !ALLOWED.has(key))
      .map(({ key, lines, line }) => `${key} (line ${line}): ${lines} lines — split it into named pieces`);
    expect(unlisted).toEqual([]);
  });

  it('lets no allowlisted function grow', () => {
    const grown = found
      .filter(({ key, lines }) => lines > (ALLOWED.get(key) ?? Number.POSITIVE_INFINITY))
      .map(({ key, lines }) => `${key}: ${lines} lines, allowed ${ALLOWED.get(key)}`);
    expect(grown).toEqual([]);
  });

  it('lists only functions still over the limit (delete the line of one you split)', () => {
    const long = new Set(found.map(({ key }) => key));
    const stale = [...ALLOWED.keys()].filter((key) => !long.has(key));
    expect(stale).toEqual([]);
  });

  it('measures a body from its opening to its closing brace and names callbacks', () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const source = [
      `export function long() {\n${body(81)}\n}`,
      `function short() {\n${body(80)}\n}`,
      `const arrow = () => {\n${body(82)}\n};`,
      `function outer() {\n  [1].map((x) => {\n${body(83)}\n  });\n}`,
    ].join('\n');
    expect(longFunctionsIn(source, 'x.ts', LIMIT).map(({ key, lines }) => [key, lines])).toEqual([
      ['x.ts › long', 81],
      ['x.ts › arrow', 82],
      ['x.ts › outer', 85],
      ['x.ts › (callback in outer)', 83],
    ]);
  });
});
