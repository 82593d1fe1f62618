import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecentFiles } from '../../src/watch/recent.js';

/** The watcher's safety net for saves chokidar misses: files reported last, checked again by inode, size and mtime. */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-recent-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const at = (file: string) => path.join(dir, file);

describe('RecentFiles', () => {
  it('reports a file deleted and created again, once, and nothing while files stay as they were', () => {
    writeFileSync(at('a.md'), 'first version\n');
    writeFileSync(at('b.md'), 'untouched\n');
    const recent = new RecentFiles();
    recent.note('a.md', at('a.md'));
    recent.note('b.md', at('b.md'));
    expect(recent.changed(at)).toEqual([]);

    // Same size, same content length: the new inode and mtime still tell.
    rmSync(at('a.md'));
    writeFileSync(at('a.md'), 'other version\n');
    utimesSync(at('a.md'), new Date('2026-03-02T10:00:00Z'), new Date('2026-03-02T10:00:00Z'));
    expect(recent.changed(at)).toEqual(['a.md']);
    expect(recent.changed(at)).toEqual([]);
  });

  it('reports a file that disappeared, and one that came back', () => {
    writeFileSync(at('a.md'), 'x\n');
    const recent = new RecentFiles();
    recent.note('a.md', at('a.md'));
    rmSync(at('a.md'));
    expect(recent.changed(at)).toEqual(['a.md']);
    writeFileSync(at('a.md'), 'x\n');
    expect(recent.changed(at)).toEqual(['a.md']);
  });

  it('keeps only the files reported last', () => {
    const recent = new RecentFiles(2);
    for (const name of ['a.md', 'b.md', 'c.md']) {
      writeFileSync(at(name), `${name}\n`);
      recent.note(name, at(name));
    }
    recent.note('b.md', at('b.md')); // reported again: now the most recent
    expect(recent.size).toBe(2);
    for (const name of ['a.md', 'b.md', 'c.md']) rmSync(at(name));
    expect(recent.changed(at).sort()).toEqual(['b.md', 'c.md']);
  });
});
