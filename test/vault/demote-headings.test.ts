import { describe, expect, it } from 'vitest';
import { demoteHeadings } from '../../src/pipeline/calendar/rollup.js';
import { headingSpans, parseMarkdown } from '../../src/vault/markdown.js';
import type { ParsedContent } from '../../src/store/cache.js';

function parsed(body: string): ParsedContent {
  return { body, sentences: [], headings: headingSpans(parseMarkdown(body)) };
}

const bodies = [
  '# Title\n\n## Done\n\n- shipped the `auth` fix\n\n## Decisions\n\nKeep Postgres.',
  'Intro line.\n\nSetext heading\n==============\n\nText under it.\n\n### Deep *emphasis* heading ###\n\nMore.',
  '```md\n# not a heading, inside a fence\n```\n\n## Real heading\n\nBody.',
  '#\n\nEmpty heading above.\n\n## Multi\nline paragraph after heading',
  'No headings at all, just # a hash in text.',
];

describe('demoting headings', () => {
  for (const [i, body] of bodies.entries()) {
    it(`body ${i + 1}: recorded heading positions give what parsing again gives`, () => {
      for (const level of [2, 3]) {
        expect(demoteHeadings(body, level, parsed(body))).toBe(demoteHeadings(body, level));
        const withoutTitle = body.replace(/^# [^\n]*\n+/, '');
        expect(demoteHeadings(withoutTitle, level, parsed(body))).toBe(demoteHeadings(withoutTitle, level));
      }
    });
  }

  it('nests the shallowest heading just below the given level and leaves fenced code alone', () => {
    expect(demoteHeadings(bodies[2]!, 2, parsed(bodies[2]!))).toBe(
      '```md\n# not a heading, inside a fence\n```\n\n### Real heading\n\nBody.',
    );
    expect(demoteHeadings(bodies[0]!, 2)).toBe('### Title\n\n#### Done\n\n- shipped the `auth` fix\n\n#### Decisions\n\nKeep Postgres.');
  });

  it('parses again when the body is not the end of the parsed content', () => {
    const other = parsed('## Something else\n\nText.');
    expect(demoteHeadings('## Done\n\nX.', 2, other)).toBe('### Done\n\nX.');
  });
});
