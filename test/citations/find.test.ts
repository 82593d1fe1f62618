import { describe, expect, it } from 'vitest';
import { citationsOfBody, findCitations, MAX_LINE_CHARS } from '../../src/vault/citation-find.js';

const targets = (body: string) => findCitations(body).map((c) => `${c.kind}:${c.target}`);

describe('findCitations', () => {
  it('finds paths with a line or a range, and the symbol named next to them', () => {
    const found = findCitations(
      'The retry lives in `src/net/retry.ts:40-52`.\n`retryWithBackoff` in `src/net/retry.ts` does it; see src/api/client.ts#L10-L20 and README.md.',
      7,
    );
    expect(found).toEqual([
      { kind: 'path', target: 'src/net/retry.ts', lines: [40, 52], line: 7 },
      { kind: 'path', target: 'src/net/retry.ts', symbol: 'retryWithBackoff', line: 8 },
      { kind: 'path', target: 'src/api/client.ts', lines: [10, 20], line: 8 },
      { kind: 'path', target: 'README.md', line: 8 },
    ]);
  });

  it('finds folders, commits, branches, issues and pull requests', () => {
    expect(
      targets(
        'Everything under `src/net/` and docs/. Landed in commit 3f2a1c0 on branch `feature/retry`; fixes #123 and acme/app#45, PR 77, ' +
          'https://github.com/acme/app/pull/99.',
      ),
    ).toEqual([
      'branch:feature/retry',
      'path:src/net/',
      'path:docs/',
      'issue:acme/app#99',
      'commit:3f2a1c0',
      'issue:#123',
      'issue:acme/app#45',
      'issue:#77',
    ]);
  });

  it('invents nothing: versions, abbreviations, URLs, e-mail addresses, hex without context, code blocks, headings', () => {
    expect(
      targets(
        '# Release 1.2.3\nVersion 1.2.3, e.g. this; km/h; see https://example.com/a/b.html or me@example.com.\n' +
          'The hash abcdef12 alone, the branch is green.\n```\ndeadbee1 src/in-code.ts\n```',
      ),
    ).toEqual([]);
  });

  it('names the line of the file, the frontmatter counted', () => {
    const text = '---\ndate: 2026-01-02\ntitle: x\n---\n\nFirst line.\nSee `src/a.ts`.\n';
    expect(citationsOfBody(Buffer.from(text), 'First line.\nSee `src/a.ts`.')).toEqual([{ kind: 'path', target: 'src/a.ts', line: 7 }]);
  });

  it('reads one line up to MAX_LINE_CHARS: a path past it on an endless line is not looked for', () => {
    const words = 'alpha beta gamma shipped the build '.repeat(Math.ceil((MAX_LINE_CHARS * 3) / 36));
    const line = `See src/early.ts first. ${words} and src/late.ts at the end.`;
    expect(findCitations(line).map((c) => c.target)).toEqual(['src/early.ts']);
    // Within the bound, every path on the line is found.
    expect(findCitations('See src/early.ts first, then src/late.ts.').map((c) => c.target)).toEqual(['src/early.ts', 'src/late.ts']);
  });

  it('takes no word cut at an apostrophe for a branch ("the branch didn\'t build")', () => {
    expect(findCitations("The release branch didn't build; branch `release/2.0` did.").map((c) => `${c.kind}:${c.target}`)).toEqual([
      'branch:release/2.0',
    ]);
    expect(findCitations('The release branch didn’t build.')).toEqual([]);
  });
});
