import { execFileSync } from 'node:child_process';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import git, { type TreeEntry } from 'isomorphic-git';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { treeContent, writeLooseObject } from '../../src/git/objects.js';

let dir: string;
let gitdir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-objects-'));
  execFileSync('git', ['init', '-q', dir]);
  gitdir = path.join(dir, '.git');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

describe('loose objects written with node zlib', () => {
  it('a blob has the id and content git gives it', () => {
    const content = Buffer.from('---\ndate: 2026-03-02\n---\nZoë shipped the fix.\n', 'utf8');
    const oid = writeLooseObject(gitdir, 'blob', content);
    expect(oid).toBe(execFileSync('git', ['hash-object', '--stdin'], { cwd: dir, input: content, encoding: 'utf8' }).trim());
    expect(run('cat-file', '-p', oid)).toBe(content.toString('utf8'));
    // Writing it again is a no-op.
    expect(writeLooseObject(gitdir, 'blob', content)).toBe(oid);
  });

  it('a tree is sorted and encoded as git does (a folder sorts as name + "/"), and passes fsck', async () => {
    const blob = writeLooseObject(gitdir, 'blob', Buffer.from('x\n'));
    const sub = writeLooseObject(gitdir, 'tree', treeContent([{ mode: '100644', path: 'inner.md', oid: blob, type: 'blob' }]));
    const entries: TreeEntry[] = [
      { mode: '040000', path: 'a', oid: sub, type: 'tree' },
      { mode: '100644', path: 'a.b', oid: blob, type: 'blob' },
      { mode: '100755', path: 'run.sh', oid: blob, type: 'blob' },
      { mode: '100644', path: 'é.md', oid: blob, type: 'blob' },
      { mode: '100644', path: 'B.md', oid: blob, type: 'blob' },
    ];
    const oid = writeLooseObject(gitdir, 'tree', treeContent(entries));
    expect(oid).toBe(await git.writeTree({ fs, gitdir, tree: entries }));
    expect(run('ls-tree', oid).trim().split('\n').map((line) => line.split('\t')[1])).toEqual(['B.md', 'a.b', 'a', 'run.sh', 'é.md'].map((name) => (name === 'é.md' ? '"\\303\\251.md"' : name)));
    run('fsck', '--strict', '--no-dangling');
  });

  it('the empty tree has git\'s well-known id', () => {
    expect(writeLooseObject(gitdir, 'tree', treeContent([]))).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
  });
});
