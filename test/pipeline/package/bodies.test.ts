import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { demoteHeadings } from '../../../src/vault/demote-headings.js';
import { ParseCache } from '../../../src/store/cache.js';
import { ContentStore } from '../../../src/load/content-store.js';
import { headingSpans, mayHaveHeadings, parseMarkdown } from '../../../src/vault/markdown.js';
import type { Memory } from '../../../src/vault/model.js';
import { sha256 } from '../../../src/util/hash.js';

/**
 * The package shows bodies with their headings demoted (ContentStore.shown):
 * a body with no line that may be a heading is shown as it is, without a
 * parse; any other is parsed with remark. The shortcut must never change
 * what is shown: the same demoted text as with remark's headings.
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

describe('bodies shown without a parse', () => {
  it('demote to the same text as with remark’s headings, for any body', () => {
    let unparsed = 0;
    fc.assert(
      fc.property(fc.array(LINE, { maxLength: 14 }), (lines) => {
        const body = lines.join('\n').trim();
        const headings = headingSpans(parseMarkdown(body));
        // Never a miss: a body remark finds a top-level heading in is always one that may have headings.
        if (headings.length > 0) expect(mayHaveHeadings(body)).toBe(true);
        if (!mayHaveHeadings(body)) unparsed++;
        for (const level of [2, 3]) {
          const shown = mayHaveHeadings(body) ? { body, headings } : { body, headings: [] };
          expect(demoteHeadings(body, level, shown)).toBe(demoteHeadings(body, level, { body, headings }));
        }
      }),
      { numRuns: 300 },
    );
    // Not vacuous: some bodies take the shortcut.
    expect(unparsed).toBeGreaterThan(10);
  });

  it('are parsed only when a line may be a heading, and counted then', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-shown-'));
    try {
      const vault = path.join(dir, 'vault');
      mkdirSync(path.join(vault, 'main/memories'), { recursive: true });
      const memoryOf = (name: string, body: string): Memory => {
        const text = `---\ndate: 2026-11-20T10:00:00Z\n---\n\n${body}\n`;
        const vaultPath = `main/memories/${name}.md`;
        writeFileSync(path.join(vault, vaultPath), text);
        return { path: vaultPath, sha256: sha256(Buffer.from(text)), importance: 'normal' } as Memory;
      };
      const store = new ContentStore(vault, ParseCache.open(dir, 'UTC'));
      const plain = memoryOf('plain', 'Moved the export.\n\n- p99 under 200ms (#7001)\n- see `#main`');
      expect(store.shown(plain)).toEqual({ body: 'Moved the export.\n\n- p99 under 200ms (#7001)\n- see `#main`', headings: [] });
      expect(store.parsed).toBe(0);
      const titled = memoryOf('titled', 'Moved the export.\n\n   ## Why\n\nLoad.');
      const shown = store.shown(titled);
      expect(store.parsed).toBe(1);
      expect(shown.headings).toEqual(headingSpans(parseMarkdown(shown.body)));
      expect(demoteHeadings(shown.body, 3, shown)).toBe('Moved the export.\n\n   #### Why\n\nLoad.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
