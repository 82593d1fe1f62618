import { describe, expect, it } from 'vitest';
import { contentWords } from '../../src/text/terms.js';

/** The one content-word function and its three uses (src/text/terms.ts, `WordUse`). */
describe('contentWords', () => {
  const text = "We shipped v2.1 of src/auth's sessions on 2026-02-10: 3 fixes, it's done";

  it('topics (the default): words of three or more characters, stop words and bare numbers out', () => {
    expect(contentWords(text)).toEqual(['shipped', 'src', 'auth', 'sessions', 'fixes']);
    expect(contentWords(text, 'topics')).toEqual(contentWords(text));
  });

  it('summary: paths and versions whole, plurals folded, short words with a digit kept', () => {
    expect(contentWords(text, 'summary')).toEqual(['shipped', 'v2.1', 'src/auth', 'session', '2026-02-10', '3', 'fixe']);
  });

  it('retention: on normalized text, two-letter words and digits kept, nothing folded', () => {
    expect(contentWords('we shipped v2 1 of src auth sessions on 2026-02-10 3 fixes', 'retention')).toEqual([
      'shipped',
      'v2',
      '1',
      'src',
      'auth',
      'sessions',
      '2026-02-10',
      '3',
      'fixes',
    ]);
  });
});

describe("contentWords(text, 'summary') on ASCII text", () => {
  it('finds the words the Unicode regex finds, on random texts of letters, digits, joiners and other punctuation', () => {
    let seed = 29;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    const pieces = ['a', 'Z', 'q', '7', '0', '_', '-', '.', '/', "'", "'s", 's', ' ', ',', ':', '`', '#', '(', ')', '\n', '\t', '~', '@'];
    for (let n = 0; n < 5000; n++) {
      let text = '';
      const length = 1 + Math.floor(random() * 16);
      for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
      // A trailing ` é` (a one-letter word, left out) sends the same text down the regex path.
      expect(contentWords(text, 'summary'), JSON.stringify(text)).toEqual(contentWords(`${text} é`, 'summary'));
    }
  });
});
