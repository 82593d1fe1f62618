import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../src/vault/markdown.js';
import { blankLineCuts, openingSentences } from '../../src/vault/opening.js';
import { extractSentences } from '../../src/vault/sentences.js';

/** The opening as the package took it before: the whole body parsed, its first sentences kept. */
function fullOpening(body: string, count: number): string[] {
  return extractSentences(parseMarkdown(body), { pinned: false })
    .filter((sentence) => sentence.role !== 'heading')
    .slice(0, count)
    .map((sentence) => sentence.text);
}

const long = (words: number, seed: string) => Array.from({ length: words }, (_, i) => `${seed}${i}`).join(' ');
// Each paragraph over the first guess of the reach (200 characters a sentence), so a beginning is parsed and then grown.
const para = (name: string) => `${name} starts here with words ${long(40, name)}. ${name} goes on. ${name} ends here, e.g. so.`;

/** Bodies where a beginning parsed alone could read differently from the whole, if the cut were taken carelessly. */
const TRICKY: Record<string, string> = {
  'reference defined after the cut': `${para('A')} See [the runbook] and [docs][ref].\n\n${para('B')}\n\n${para('C')}\n\n[the runbook]: https://x.test\n[ref]: /docs`,
  'reference label over two lines': `${para('A')} See [the\nrun book].\n\n${para('B')}\n\n${para('C')}\n\n[the\nrun book]:\n  /url "title"`,
  'reference in a block quote after the cut': `${para('A')} [q] is it.\n\n${para('B')}\n\n${para('C')}\n\n> [q]: /q`,
  'fenced code with blank lines': `\`\`\`ts\nconst a = 1;\n\nFake sentence in code. Another one.\n\n\`\`\`\n\n${para('A')}\n\n${para('B')}`,
  'fence left open': `${para('A')}\n\n~~~\n${para('code')}\n\n${para('more code')}\n\n${para('B')}`,
  'fence closed by a longer fence only': `\`\`\`\`\n${para('x')}\n\n\`\`\`\n\n${para('y')}\n\`\`\`\`\n\n${para('A')}\n\n${para('B')}\n\n${para('C')}`,
  'fence in a list item': `1. ${para('A')}\n\n   \`\`\`\n   code\n\n   ${para('code')}\n   \`\`\`\n\n2. ${para('B')}\n\n${para('C')}`,
  'HTML comment over blank lines': `<!--\n${para('hidden')}\n\n${para('hidden too')}\n-->\n\n${para('A')}\n\n${para('B')}\n\n${para('C')}`,
  'HTML block': `<div>\n${para('html')}\n</div>\n\n${para('A')}\n\n<details>\n\n${para('B')}\n\n</details>\n\n${para('C')}`,
  'setext headings': `Title\n=====\n\n${para('A')}\nSection\n-------\n\n${para('B')}\n\n${para('C')}`,
  'headings only at first': `# One\n\n## Two\n\n### Three\n\n${para('A')}\n\n${para('B')}`,
  'loose list with paragraphs': `- ${para('A')}\n\n  ${para('A2')}\n\n- ${para('B')}\n\n  - ${para('nested')}\n\n${para('C')}`,
  'block quote': `> ${para('A')}\n>\n> ${para('B')}\n\n${para('C')}`,
  'lazy continuation': `> ${para('A')}\ncontinued lazily. Still.\n\n${para('B')}\n\n${para('C')}`,
  'a line of a no-break space (text, not blank)':
    'Alpha one is long enough here. Beta two is long enough too. Gamma, e.g. this one, starts and\n\u00a0\nends on the line ' +
    `after the no-break space. Delta four.\n\n${para('B')}`,
  'CRLF line endings': `${para('A')}\r\n\r\n${para('B')}\r\n  \r\n${para('C')}\r\n\r\n${para('D')}`,
  'blank lines of spaces': `${para('A')}\n   \n${para('B')}\n\t\n${para('C')}\n \n${para('D')}`,
  'short fragments': `Ok. Yes. No. ${long(60, 'w')}.\n\nOk.\n\nFine. Done.\n\n${para('A')}\n\n${para('B')}`,
  'code spans with dots': `Call \`a.b()\` then \`c.d\`. ${long(50, 'z')}. Then \`e. f\` too.\n\n${para('A')}\n\n${para('B')}`,
  'indented code after a blank line': `${para('A')}\n\n    ${para('code')}\n\n    more code.\n\n${para('B')}\n\n${para('C')}`,
  'one long paragraph': `${para('A')} ${para('B')} ${para('C')} ${para('D')}`,
  'fewer sentences than asked': `${para('A')}`,
  'empty body': '',
  'a table-like paragraph': `| a | b |\n| - | - |\n| ${long(30, 't')}. | x. |\n\n${para('A')}\n\n${para('B')}`,
  'thematic breaks': `${para('A')}\n\n***\n\n${para('B')}\n\n---\n\n${para('C')}`,
  'many short paragraphs': Array.from({ length: 300 }, (_, i) => `Line ${i} says a thing.`).join('\n\n'),
  'long first block past the piece size': `${Array.from({ length: 250 }, (_, i) => `- item ${i}`).join('\n')}\n\n${para('A')}`,
};

describe('openingSentences (a memory opening from its beginning only)', () => {
  for (const [name, body] of Object.entries(TRICKY)) {
    it(`reads the same opening as the whole body: ${name}`, () => {
      for (const count of [1, 2, 3, 5, 8]) expect(openingSentences(body, count)).toEqual(fullOpening(body, count));
    });
  }

  it('parses only a beginning when the body allows it', () => {
    // A reference definition after the cut asks for the whole body; without one, the link text reads the same.
    const body = `${para('A')}\n\n${para('B')}\n\n${para('C')}\n\n${para('D')}\n\n${'Tail sentence. '.repeat(2000)}`;
    const started = performance.now();
    for (let i = 0; i < 20; i++) openingSentences(body, 3);
    const prefix = performance.now() - started;
    const fullStarted = performance.now();
    for (let i = 0; i < 20; i++) fullOpening(body, 3);
    const full = performance.now() - fullStarted;
    expect(openingSentences(body, 3)).toEqual(fullOpening(body, 3));
    // Not a timing test: the whole body is ~30 times the beginning, so parsing it whole cannot be as fast.
    expect(prefix).toBeLessThan(full);
  });

  it('offers no cut inside fenced code, and cuts after blank lines of spaces', () => {
    const text = 'a\n\n```\nb\n\nc\n```\n\nd\n  \ne';
    expect(blankLineCuts(text).map((cut) => text.slice(cut, cut + 1))).toEqual(['`', 'd', 'e']);
  });

  it('reads the same opening as the whole body for bodies built from tricky pieces (property)', () => {
    const block = fc.oneof(
      fc.constantFrom(
        'Plain sentence one. Plain sentence two.',
        'Ok.',
        '# Heading',
        'Setext\n===',
        'Para line\n---',
        '- item one. More.\n- item two.',
        '- loose item.\n\n  Second paragraph of it.',
        '1. first.\n\n   ```\n   in code.\n\n   still code.\n   ```',
        '> quoted. Sentence.\n>\n> more.',
        '```\ncode. Not prose.\n\nstill code.\n```',
        '~~~~\nopen fence.',
        '<!--\ncomment.\n\nstill comment.\n-->',
        '<div>\nhtml.\n</div>',
        'See [ref] and [text][ref2] and [inline](/x).',
        '[ref]: /somewhere',
        '[ref2]:\n  /else "title"',
        '    indented code.',
        'Call `a.b()` now. Then `x. y` later.',
        '***',
        '*emph. still* and **strong. text**.',
        'Line one\nline two. Three.',
        'A sentence, e.g. this one, runs on and\n\u00a0\nends after a no-break space. Next.',
        'Ends with CRLF. Yes.\r\n\r\nAnd on.',
        '',
        '   ',
      ),
      fc.lorem({ maxCount: 40, mode: 'sentences' }),
    );
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 16 }), fc.integer({ min: 1, max: 6 }), (blocks, count) => {
        const body = blocks.join('\n\n');
        expect(openingSentences(body, count)).toEqual(fullOpening(body, count));
      }),
      { numRuns: 300, seed: 28 },
    );
  });
});
