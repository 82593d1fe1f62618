import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { segmentedTokenCounter } from '../../../src/pipeline/package/token-count.js';
import { countTokens, type TokenizerName } from '../../../src/util/tokens.js';

/**
 * The package counts its tokens line by line, each line counted once (token-count.ts): the sum must be the count
 * of the whole text, for any text, in both encodings, since the package's fit (and so its bytes) depends on it.
 */

/** Pieces that meet at line starts in a package: headings, bullets, punctuation, paths, spaces, digits, non-ASCII. */
const PIECES = [
  '\n',
  '\n\n',
  ' ',
  '  ',
  '\t',
  '\r\n',
  '### ',
  '## ',
  '- ',
  '  - ',
  '> **Stale:** ',
  '/',
  '//',
  '.',
  '...',
  ':',
  '`',
  '(shortened to fit the budget)',
  '2026-11-20 23:57',
  '#3943',
  '99.5%',
  'Step',
  "don't",
  'Root cause was',
  'src/http/router.ts',
  'CPU',
  'é',
  'Zürich',
  '日本語',
  '🙂',
  '---',
  'memvault: package',
];

const texts = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((pieces) => pieces.join(''));

describe('the token count of a package, line by line', () => {
  for (const tokenizer of ['o200k_base', 'cl100k_base'] as TokenizerName[]) {
    it(`is the count of the whole text (${tokenizer})`, () => {
      const count = segmentedTokenCounter(tokenizer);
      fc.assert(
        fc.property(texts, (text) => {
          expect(count(text)).toBe(countTokens(text, tokenizer));
        }),
        { numRuns: 400 },
      );
    });
  }

  it('counts a line seen before from memory, and the sum still changes with each line', () => {
    const count = segmentedTokenCounter('o200k_base');
    const base = '# Memory of main\n\n### 09:00 Deploy\n\nRolled back the deploy.\n';
    expect(count(base)).toBe(countTokens(base));
    const more = `${base}\n### 09:05 Fix\n\nFixed the cache key (see #412).\n`;
    expect(count(more)).toBe(countTokens(more));
  });
});
