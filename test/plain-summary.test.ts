import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSyntheticVault } from '../scripts/fixtures/synthetic-vault.js';
import { build } from '../src/pipeline/build.js';
import { headingSpans, parseMarkdown } from '../src/vault/markdown.js';
import { readPlainSummary } from '../src/vault/plain-summary.js';
import { extractSentences, sentencesOf } from '../src/vault/sentences.js';

/** What the tiers above read of a summary body, through remark. */
function viaRemark(text: string): unknown {
  const tree = parseMarkdown(text);
  return { sentences: extractSentences(tree, { pinned: false }), headings: headingSpans(tree) };
}

/** The same, through the plain reader; undefined when it leaves the body to remark. */
function viaPlain(text: string): unknown {
  const plain = readPlainSummary(text);
  return plain && { sentences: sentencesOf(plain.prose, { pinned: false }), headings: plain.headings };
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('readPlainSummary', () => {
  it('reads the summaries a build writes as remark does, and takes most of them', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'memvault-plain-'));
    roots.push(root);
    generateSyntheticVault(root, { memories: 150, days: 60, endDay: '2026-03-14', seed: 11, pinned: 2 });
    await build({ root, now: new Date('2026-03-15T06:00:00Z'), commit: false });
    const stream = path.join(root, 'vault', 'main');
    const files = readdirSync(stream, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.md') && !file.startsWith('memories') && !file.startsWith('UPLOAD'));
    let plain = 0;
    for (const file of files) {
      const body = readFileSync(path.join(stream, file), 'utf8')
        .replace(/^---\n[\s\S]*?\n---\n/, '')
        .trim();
      const read = viaPlain(body);
      if (read === undefined) continue;
      plain++;
      expect(read, file).toEqual(viaRemark(body));
    }
    expect(files.length).toBeGreaterThan(60);
    expect(plain / files.length).toBeGreaterThan(0.8);
  });

  it('reads headings, bullets, nested bullets, day and Pinned labels, code spans and words with underscores', () => {
    const body = [
      '# main: week 2026-W07 (2026-02-09 to 2026-02-15)',
      '',
      '## Accomplishments',
      '',
      '- **Tue 02-10** Replaced the JWT with opaque session tokens. Sessions live 30 days.',
      '- **Wed 02-11**',
      '  - Fixed `roundHalfAway()` in pg_stat_statements parsing; `DEBUG=worker:*` helped.',
      '  - #412 is closed.',
      '- **Pinned:** Never run the pruner on the primary #critical.',
      '- Caroline: I went to the LGBTQ support group yesterday (7 May 2023)… A lone ` is text.',
      '## Open threads',
      '- Still waiting on Dana ###### for the review.',
    ].join('\n');
    const read = viaPlain(body);
    expect(read).toBeDefined();
    expect(read).toEqual(viaRemark(body));
  });

  it.each([
    ['emphasis', '- Some *emphasised* words'],
    ['underscore emphasis', '- Some _emphasised_ words'],
    ['a link', '- See [the docs](https://example.org)'],
    ['HTML', '- A <b>bold</b> claim'],
    ['an entity', '- Fish &amp; chips'],
    ['an escape', '- Not \\*emphasis\\*'],
    ['a code span that loses its padding spaces', '- Run ` npm test ` first'],
    ['a double-backtick code span', '- Run ``a ` b`` first'],
    ['an ordered list inside the bullet', '- 1. first'],
    ['a heading inside the bullet', '- # heading'],
    ['a nested list marker', '- - nested'],
    ['a paragraph', 'Just a paragraph line.'],
    ['a nested bullet without a parent', '## Done\n\n  - orphan'],
    ['a nested bullet after a blank line', '- parent\n\n  - child'],
    ['a heading with a closing sequence', '## Done ##'],
    ['a label glued to its text', '- **Tue 02-10**text'],
    ['a bold word that is not a label', '- **Important** text'],
    ['a deeper indentation', '    - code?'],
  ])('leaves %s to remark', (_, body) => {
    expect(readPlainSummary(body)).toBeUndefined();
  });

  it('never reads a body differently from remark (generated bodies full of markdown characters)', () => {
    const word = fc.oneof(
      { weight: 10, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,6}[.,:;!?…)]?$/) },
      { weight: 2, arbitrary: fc.stringMatching(/^[a-z]{1,4}_[a-z]{1,4}$/) },
      { weight: 2, arbitrary: fc.stringMatching(/^`[^`\n]{1,6}`$/) },
      { weight: 1, arbitrary: fc.stringMatching(/^#\d{1,4}$/) },
      { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9_*`[\]<>&\\#!|~:.,()'"…-]{1,8}$/) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '*em*',
          '_em_',
          '**strong**',
          '[a](b)',
          '<b>',
          '<https://x.org>',
          '&amp;',
          '\\*',
          '` x `',
          '``a`b``',
          '~~s~~',
          '![i](p)',
        ),
      },
    );
    const text = fc.array(word, { minLength: 1, maxLength: 7 }).map((words) => words.join(' '));
    const label = fc.constantFrom('', '**Tue 02-10** ', '**Mon 2026-02-09** ', '**Pinned:** ', '**Tue 02-10**');
    const line = fc.oneof(
      { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 1, max: 6 }), text).map(([depth, content]) => `${'#'.repeat(depth)} ${content}`) },
      { weight: 4, arbitrary: fc.tuple(label, text).map(([prefix, content]) => `- ${prefix}${content}`) },
      { weight: 2, arbitrary: fc.tuple(label, text).map(([prefix, content]) => `  - ${prefix}${content}`) },
      { weight: 1, arbitrary: text }, // a paragraph: always left to remark
      { weight: 1, arbitrary: fc.constant('') },
    );
    let read = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
        const body = lines.join('\n').trim();
        const plain = viaPlain(body);
        if (plain === undefined) return;
        read++;
        expect(plain).toEqual(viaRemark(body));
      }),
      { numRuns: 1500, seed: 20261122 },
    );
    // Enough of them are read without remark for the comparison to mean something.
    expect(read).toBeGreaterThan(100);
  });
});
