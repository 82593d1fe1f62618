import { describe, expect, it } from 'vitest';
import { conflictMarkerLine, readMemoryFile } from '../../src/vault/memory-file.js';

/**
 * What counts as git's conflict markers in a memory: a `<<<<<<<` line, a `=======` line and a `>>>>>>>` line in that
 * order, each at the start of its line (as git writes them, with diff3's `|||||||` or CRLF line ends too). A lone
 * `=======` (a setext heading's underline) or indented markers quoted as text are not.
 */

const place = { path: 'main/memories/2026-02-13-x.md', stream: 'main', location: 'memories' as const, relativeId: '2026-02-13-x' };

describe('conflict markers in a memory', () => {
  it.each([
    [
      'in the frontmatter',
      '---\n<<<<<<< HEAD\ndate: 2026-02-13T10:00:00Z\n=======\ndate: 2026-02-13T11:00:00Z\n>>>>>>> origin/main\n---\nText.\n',
      2,
    ],
    ['in the body', '---\ndate: 2026-02-13\n---\nIntro.\n<<<<<<< HEAD\nOurs.\n=======\nTheirs.\n>>>>>>> 1a2b3c4\n', 5],
    [
      'diff3 style, CRLF',
      '---\r\ndate: 2026-02-13\r\n---\r\n<<<<<<< ours\r\nA.\r\n||||||| base\r\nB.\r\n=======\r\nC.\r\n>>>>>>> theirs\r\n',
      4,
    ],
    ['markers without labels', 'Text.\n<<<<<<<\nA.\n=======\nB.\n>>>>>>>\n', 2],
  ])('%s: an error at the first marker, never read as a memory', (_, text, line) => {
    expect(conflictMarkerLine(text)).toBe(line);
    const read = readMemoryFile(Buffer.from(text), place, 'UTC');
    expect(read.ok).toBe(false);
    expect(!read.ok && read.diagnostics).toEqual([
      expect.objectContaining({ path: place.path, line, column: 1, severity: 'error', rule: 'memory/conflict-markers' }),
    ]);
  });

  it.each([
    ['a setext heading', '---\ndate: 2026-02-13\n---\nRelease notes\n=======\n\nShipped.\n'],
    ['indented markers quoted as text', '---\ndate: 2026-02-13\n---\nGit writes:\n\n    <<<<<<< HEAD\n    =======\n    >>>>>>> main\n'],
    ['an opening marker alone', '---\ndate: 2026-02-13\n---\n<<<<<<< HEAD\nno end\n'],
    ['eight characters', '---\ndate: 2026-02-13\n---\n<<<<<<<< x\n=======\n>>>>>>>> y\n'],
  ])('%s is an ordinary memory', (_, text) => {
    expect(conflictMarkerLine(text)).toBeUndefined();
    expect(readMemoryFile(Buffer.from(text), place, 'UTC').ok).toBe(true);
  });
});
