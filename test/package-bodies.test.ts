import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headingsFromLines } from '../src/pipeline/package/bodies.js';
import { demoteHeadings } from '../src/pipeline/rollup-sources.js';
import { headingSpans, parseMarkdown } from '../src/vault/markdown.js';

/**
 * The package demotes the headings of the bodies it shows without parsing
 * them when their lines leave no doubt (src/pipeline/package/bodies.ts): the
 * headings found so must be exactly remark's, and so must the demoted text.
 */

/** Lines that make or break headings: ATX variants, setext underlines, fences, HTML, lists, quotes, escapes, tabs. */
const LINE = fc.oneof(
  fc.constantFrom(
    '# Title',
    '## Done',
    '### ###',
    '#',
    '# #',
    '#\tTabbed\t#',
    '## closing ##  ',
    '## not closing#',
    '## escaped \\#',
    '####### seven',
    '#5 bolt',
    '  ## indented',
    '    # code',
    '\t# tab code',
    '- item',
    '- # heading in a list',
    '  continued',
    '> quoted',
    '> # quoted heading',
    '```',
    '```js',
    '```a`b',
    '  ```',
    '- ```',
    '~~~',
    '~~~~',
    '<div>',
    '<!-- note',
    '-->',
    '[ref]: /url "title',
    'title"',
    '---',
    '===',
    '- ',
    '***',
    '1. first',
    'Plain text with a # in it.',
    'Decided to *keep* the `#` as is.',
    '',
    '',
  ),
  fc
    .tuple(fc.constantFrom('', '# ', '## ', '- ', '> ', '    '), fc.stringMatching(/^[a-z #*_`\\\t]{0,12}$/))
    .map(([lead, rest]) => `${lead}${rest}`),
);

describe('headings from the lines of a body', () => {
  it('are remark’s top-level headings whenever the lines leave no doubt', () => {
    let withHeadings = 0;
    fc.assert(
      fc.property(fc.array(LINE, { maxLength: 14 }), (lines) => {
        const body = lines.join('\n').trim();
        const fast = headingsFromLines(body);
        if (fast === undefined) return;
        if (fast.length > 0) withHeadings++;
        expect(fast).toEqual(headingSpans(parseMarkdown(body)));
        // What the package shows: the same demoted text as with the parsed headings.
        for (const level of [2, 3]) {
          const parsed = { body, sentences: [], headings: headingSpans(parseMarkdown(body)) };
          expect(demoteHeadings(body, level, { body, sentences: [], headings: fast })).toBe(demoteHeadings(body, level, parsed));
        }
      }),
      { numRuns: 300 },
    );
    // Not a vacuous check: many bodies have headings found from their lines (about a third of them).
    expect(withHeadings).toBeGreaterThan(30);
  });

  it('leave no doubt for what memvault writes: a daily summary, a memory with a list and headings', () => {
    const daily = '# main: 2026-11-20 (Friday)\n\n## Done\n\n- Fixed `statement_timeout`; see #2964.\n\n## Decisions\n\n- Keep it.';
    const memory = 'Moved the export.\n\n### Why\n\n- p99 under 200ms (#7001)\n- 1. nested';
    for (const body of [daily, memory]) {
      const fast = headingsFromLines(body);
      expect(fast).toBeDefined();
      expect(fast).toEqual(headingSpans(parseMarkdown(body)));
    }
    // A body without a heading-like line needs nothing at all; a `#` line in fenced code is no heading; code in a list item
    // (is the next line in it or not?) makes the lines uncertain.
    expect(headingsFromLines('Just a note.\n\n- a list')).toEqual([]);
    const fenced = '## A\n\n```sh\n# not a heading\n```\n# B';
    expect(headingsFromLines(fenced)).toEqual([
      [0, 4, 2, 3, 4],
      [32, 35, 1, 34, 35],
    ]);
    expect(headingsFromLines(fenced)).toEqual(headingSpans(parseMarkdown(fenced)));
    expect(headingsFromLines('## A\n\n- step\n  ```\n# B\n  ```')).toBeUndefined();
  });
});
