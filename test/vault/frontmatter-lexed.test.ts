import { describe, expect, it } from 'vitest';
import { Lexer, LineCounter, parseDocument } from 'yaml';
import { parseLexed } from '../../src/vault/frontmatter.js';

/** What a test compares of a parsed document: its data, text, errors, warnings and the line starts counted. */
function summary(doc: ReturnType<typeof parseDocument>, lines: LineCounter) {
  const problem = (e: { code: string; message: string; pos: [number, number] }) => ({ code: e.code, message: e.message, pos: e.pos });
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    data = `throws: ${(error as Error).message}`;
  }
  return {
    data,
    text: doc.errors.length === 0 ? String(doc) : '',
    errors: doc.errors.map(problem),
    warnings: doc.warnings.map(problem),
    lines: lines.lineStarts,
  };
}

describe('parseLexed', () => {
  it.each([
    [
      'a memory',
      'date: 2023-11-22T20:38:00+01:00\ntitle: "Cleanup: metrics exporter release"\nkind: session\ntags: [metrics, testing]\nimportance: normal\n',
    ],
    ['empty', ''],
    ['comments and blank lines', '# note\n\na: 1 # one\n\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['bad indentation', 'a:\n  b: 1\n c: 2\n'],
    ['an unclosed flow list', 'tags: [a, b\n'],
    ['anchors and aliases', 'a: &x [1, 2]\nb: *x\n'],
    ['a block scalar', 'text: |\n  line one\n  line two\nnext: 3\n'],
    ['a scalar document', 'just text\n'],
    ['tabs and CRLF-like text', 'a:\t1\nb: "x\\ty"\n'],
    ['nested maps', 'a:\n  b:\n    c: [1, {d: e}]\n'],
  ])('reads %s as parseDocument does', (_what, source) => {
    const expectedLines = new LineCounter();
    const expected = parseDocument(source, { lineCounter: expectedLines, prettyErrors: false, uniqueKeys: true });
    const lines = new LineCounter();
    const doc = parseLexed(source, [...new Lexer().lex(source)], lines);
    expect(summary(doc, lines)).toEqual(summary(expected, expectedLines));
    expect(doc.range).toEqual(expected.range);
  });
});
