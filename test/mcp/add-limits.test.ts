import { afterAll, describe, expect, it } from 'vitest';
import { addMemory } from '../../src/ingest/add.js';
import { createProject, listFiles, removeProject } from '../helpers/project.js';

/**
 * The limits `memvault add` and the MCP tool `add_memory` share
 * (src/ingest/add-limits.ts, called by `addMemory`), at their edges and
 * in-process: the CLI and the server are driven end to end in
 * test/mcp/limits.test.ts. A memory the build would leave out (over its
 * 1 MiB file limit, a NUL byte) is never written.
 */

const MiB = 1024 * 1024;
const root = createProject({});
afterAll(() => removeProject(root));
const add = (fields: { text: string; title?: string; tags?: string[]; kind?: string }) =>
  addMemory({ root, now: new Date('2026-03-20T12:00:00Z'), ...fields });

describe('add limits', () => {
  it('counts the text in UTF-8 bytes against the build’s 1 MiB, and the written file too', async () => {
    await expect(add({ text: 'é'.repeat(MiB / 2 + 1) })).rejects.toMatchObject({
      rule: 'add/too-large',
      message: "the memory text is 1,048,578 bytes; a memory file holds at most 1 MiB (1,048,576 bytes), the build's limit",
    });
    // The text fits; with its frontmatter the file would not: refused before writing all the same.
    await expect(add({ text: 'x'.repeat(MiB) })).rejects.toMatchObject({
      rule: 'add/too-large',
      message: expect.stringMatching(/^the memory file would be 1,048,6\d\d bytes;/),
    });
    expect(listFiles(root, 'vault')).toEqual([]);
    const fits = await add({ text: 'y'.repeat(MiB - 1000) });
    expect(fits.path).toMatch(/^main\/memories\/2026\/03\//);
  });

  it('refuses control characters where they are, but takes tabs and CRLF', async () => {
    await expect(add({ text: 'line one\nred: \u001b[31mX' })).rejects.toMatchObject({
      rule: 'add/control',
      message: 'the memory text holds an escape character (U+001B) at line 2, column 6',
    });
    await expect(add({ text: 'ok', tags: ['fine', 'bell\u0007'] })).rejects.toMatchObject({
      message: 'the tag `bell\u0007` holds a control character (U+0007) at line 1, column 5',
    });
    await expect(add({ text: 'ok\u0085' })).rejects.toMatchObject({ rule: 'add/control' });
    const taken = await add({ text: 'col\tcol\r\nnext line' });
    expect(taken.id).toBeTruthy();
  });

  it('takes a title, tag or kind of one short line only', async () => {
    await expect(add({ text: 'ok', title: 'a'.repeat(1001) })).rejects.toMatchObject({
      rule: 'add/field',
      message: 'the title is 1,001 characters; at most 1,000',
    });
    await expect(add({ text: 'ok', title: 'two\r\nlines' })).rejects.toMatchObject({ message: 'the title must be one line' });
    await expect(add({ text: 'ok', kind: 'k'.repeat(101) })).rejects.toMatchObject({ rule: 'add/field' });
    await expect(add({ text: 'ok', tags: Array.from({ length: 101 }, (_, i) => `t${i}`) })).rejects.toMatchObject({
      message: '101 tags; a memory takes at most 100',
    });
    const titled = await add({ text: 'ok', title: 't'.repeat(1000), tags: ['x'.repeat(100)] });
    expect(titled.id).toBeTruthy();
  });
});
