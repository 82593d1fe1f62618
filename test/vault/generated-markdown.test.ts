import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../scripts/fixtures/synthetic-vault/rng.js';
import { readGeneratedMarkdown } from '../../src/vault/generated-markdown.js';
import { headingSpans, parseMarkdown } from '../../src/vault/markdown.js';
import { proseOf } from '../../src/vault/sentences.js';
import { parseSummaryBody } from '../../src/load/parse-file.js';

/** What remark reads: the reference the fast reader must equal whenever it answers. */
const byRemark = (text: string) => {
  const tree = parseMarkdown(text);
  return { prose: proseOf(tree), headings: headingSpans(tree) };
};

const SUMMARY = [
  '# main: week 2024-W44 (2024-10-28 to 2024-11-03)',
  '',
  '## Accomplishments',
  '',
  '- **Mon 10-28**',
  '  - Removed `npm ci` in the webhook dispatcher; see #2031.',
  '  - Added tests for `SELECT ... FOR UPDATE` (and ` x `) here.',
  '- **Wed 10-30** **Pinned:** Added tests for `cache.invalidate(key)`. Done!',
  '',
  '## Open threads',
  '',
  'Caroline: we still wait for the 2.3 s target #critical',
  '',
  '- Left a TODO in `src/auth/session.ts` about the old flag.',
].join('\n');

describe('reading generated summary markdown without remark', () => {
  it('reads a summary exactly as remark does', () => {
    const fast = readGeneratedMarkdown(SUMMARY);
    expect(fast).toBeDefined();
    expect(fast).toEqual(byRemark(SUMMARY));
    expect(fast!.headings).toHaveLength(3);
  });

  it.each([
    ['emphasis', '# T\n\n- a *b* c'],
    ['underscore', '# T\n\n- snake_case word'],
    ['link', '# T\n\n- see [x](y)'],
    ['escape', '# T\n\n- a \\* b'],
    ['entity', '# T\n\n- a &amp; b'],
    ['html', '# T\n\n- a <b>c</b>'],
    ['double backticks', '# T\n\n- a ``b`` c'],
    ['unclosed code', '# T\n\n- a `b c'],
    ['lazy continuation', '# T\n\n- a\nb'],
    ['paragraph then list', '# T\n\npara\n- b'],
    ['ordered marker', '# T\n\n- 1. b'],
    ['nested list marker', '# T\n\n- - b'],
    ['thematic break', '# T\n\n---'],
    ['setext underline', 'Title\n====='],
    ['closing hashes', '## Done ##'],
    ['indented code', '# T\n\n    code'],
    ['trailing blanks (hard break)', '# T\n\nline  '],
    ['bold glued to a word', '# T\n\n- **Mon**day'],
    ['tab', '# T\n\n-\tb'],
    ['fence', '# T\n\n```\ncode\n```'],
    ['empty', ''],
  ])('leaves %s to remark', (_what, text) => {
    expect(readGeneratedMarkdown(text)).toBeUndefined();
  });

  it('agrees with remark on random lines of the summary alphabet whenever it answers', () => {
    // Deterministic pseudo-random documents built from the pieces summaries are made of, and the characters that trip markdown.
    const rng = mulberry32(12345);
    const random = (n: number): number => Math.floor(rng() * n);
    const safe = ['a', 'Word', ' ', ' ', 'x.y()', '`code`', '` c `', '**Mon 10-28** ', ':', '.', 'é', '#1', '2.3 s', '!'];
    const hostile = ['  ', '`', '``', '**', '*', '_', '#', '-', '1.', '2)', '>', '<', '&', '\\', '[', ']', '|', '~', '=', '\t'];
    const piece = (): string => (random(5) === 0 ? hostile[random(hostile.length)]! : safe[random(safe.length)]!);
    const prefixes = ['', '', '- ', '- ', '  - ', '# ', '## ', '### ', '    ', '* ', '1. '];
    let answered = 0;
    for (let doc = 0; doc < 1500; doc++) {
      const lines: string[] = [];
      const count = 1 + random(6);
      for (let l = 0; l < count; l++) {
        let line = prefixes[random(prefixes.length)]!;
        const length = random(8);
        for (let p = 0; p < length; p++) line += piece();
        lines.push(random(4) === 0 ? '' : line);
      }
      const text = lines.join('\n').trim();
      const fast = readGeneratedMarkdown(text);
      if (fast === undefined) continue;
      answered++;
      expect(fast, JSON.stringify(text)).toEqual(byRemark(text));
    }
    expect(answered).toBeGreaterThan(100);
  });

  it('gives parseSummaryBody the same sentences and spans as remark', () => {
    const parsed = parseSummaryBody(`${SUMMARY}\n`);
    const tree = parseMarkdown(SUMMARY);
    expect(parsed.headings).toEqual(headingSpans(tree));
    expect(parsed.sentences.map((s) => s.text)).toContain('Removed `npm ci` in the webhook dispatcher; see #2031.');
  });
});
