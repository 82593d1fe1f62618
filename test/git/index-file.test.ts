import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobOid } from '../../src/git/commit.js';
import { entryFor, readIndex, updateEntries, writeIndex } from '../../src/git/index-file.js';
import { findRepo } from '../../src/git/repo.js';
import { editTree } from '../../src/git/tree.js';
import { UserError } from '../../src/util/errors.js';
import { createProject, removeProject, writeFiles } from '../helpers/project.js';
import { commitAll, git, gitStatus, initRepo } from './helpers.js';

/**
 * The git index and tree writers, checked against the git CLI: an index
 * rewritten with a few entries changed reads back identically everywhere
 * else, the lock protocol is honoured, and formats memvault cannot update are
 * refused with a hint.
 */

const roots: string[] = [];
afterAll(() => roots.forEach(removeProject));

function repoWithWork(): string {
  const root = createProject({ 'a.txt': 'a\n', 'dir/b.txt': 'b\n', 'dir/sub/c.txt': 'c\n', 'run.sh': '#!/bin/sh\necho hi\n' });
  roots.push(root);
  initRepo(root);
  chmodSync(path.join(root, 'run.sh'), 0o755);
  commitAll(root, 'initial'); // leaves a TREE (cache-tree) extension in the index
  writeFiles(root, { 'staged.txt': 'staged by a person\n', 'dir/b.txt': 'b, edited but not staged\n' });
  git(root, 'add', 'staged.txt');
  return root;
}

const stat = (root: string, file: string) => lstatSync(path.join(root, file), { bigint: true });

describe('git index', () => {
  it('computes blob ids like git hash-object', () => {
    const root = repoWithWork();
    for (const file of ['a.txt', 'dir/sub/c.txt', 'staged.txt']) expect(blobOid(readFileSync(path.join(root, file)))).toBe(git(root, 'hash-object', file).trim());
  });

  it('rewrites the index without changing any entry it was not asked to change', () => {
    const root = repoWithWork();
    const gitdir = path.join(root, '.git');
    const before = { files: git(root, 'ls-files', '-s', '--debug'), status: git(root, 'status', '--porcelain') };
    writeIndex(gitdir, updateEntries(readIndex(gitdir), new Map()));
    expect(git(root, 'ls-files', '-s', '--debug')).toBe(before.files);
    expect(git(root, 'status', '--porcelain')).toBe(before.status);
    expect(existsSync(path.join(gitdir, 'index.lock'))).toBe(false);
  });

  it('stages new content, adds and removes paths, and leaves the rest staged as it was', () => {
    const root = repoWithWork();
    const gitdir = path.join(root, '.git');
    writeFiles(root, { 'vault/new.md': 'new\n', 'a.txt': 'a, changed\n' });
    git(root, 'hash-object', '-w', 'vault/new.md', 'a.txt'); // the objects the index will point to
    const updates = new Map([
      ['vault/new.md', entryFor('vault/new.md', blobOid(readFileSync(path.join(root, 'vault/new.md'))), stat(root, 'vault/new.md'))],
      ['a.txt', entryFor('a.txt', blobOid(readFileSync(path.join(root, 'a.txt'))), stat(root, 'a.txt'))],
      ['dir/sub/c.txt', null],
    ]);
    writeIndex(gitdir, updateEntries(readIndex(gitdir), updates));
    expect(git(root, 'diff', '--cached', '--name-status').trim().split('\n').sort()).toEqual(['A\tstaged.txt', 'A\tvault/new.md', 'D\tdir/sub/c.txt', 'M\ta.txt'].sort());
    // Stat data is right: git sees no unstaged change in what was just staged, and the person's unstaged edit is still unstaged.
    expect(git(root, 'diff', '--name-only').trim().split('\n')).toEqual(['dir/b.txt']);
    expect(git(root, 'ls-files', '-s', 'run.sh')).toMatch(/^100755 /);
    expect(gitStatus(root, 'fsck', '--strict').code).toBe(0);
  });

  it('keeps git\'s order of paths with non-ASCII names (git rejects an unsorted index)', () => {
    const root = repoWithWork();
    const gitdir = path.join(root, '.git');
    const names = ['vault/z.md', 'vault/\u00e9t\u00e9.md', 'vault/\u{1f600}.md', 'vault/\uff5e.md', 'vault/a b.md'];
    writeFiles(root, Object.fromEntries(names.map((name) => [name, `${name}\n`])));
    git(root, '-c', 'core.quotepath=false', 'hash-object', '-w', ...names);
    const updates = new Map(names.map((name) => [name, entryFor(name, blobOid(readFileSync(path.join(root, name))), stat(root, name))]));
    writeIndex(gitdir, updateEntries(readIndex(gitdir), updates));
    const listed = git(root, '-c', 'core.quotepath=false', 'ls-files').trim().split('\n').filter((file) => file.startsWith('vault/'));
    expect(listed).toEqual([...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(gitStatus(root, 'fsck', '--strict').code).toBe(0);
    // Staged exactly as written, with nothing left unstaged.
    expect(git(root, 'status', '--porcelain', '--', 'vault').trim().split('\n').map((line) => line.slice(0, 3))).toEqual(names.map(() => 'A  '));
  });

  it('keeps an intent-to-add entry (index format 3) of a person', () => {
    const root = repoWithWork();
    writeFiles(root, { 'later.txt': 'maybe\n' });
    git(root, 'add', '-N', 'later.txt');
    const gitdir = path.join(root, '.git');
    const index = readIndex(gitdir);
    expect(index.version).toBe(3);
    const before = git(root, 'status', '--porcelain');
    writeIndex(gitdir, updateEntries(index, new Map()));
    expect(git(root, 'status', '--porcelain')).toBe(before);
    expect(before).toContain(' A later.txt');
  });

  it('refuses formats it cannot update (version 4, split index), with a hint', () => {
    const root = repoWithWork();
    const gitdir = path.join(root, '.git');
    git(root, 'update-index', '--index-version', '4');
    expect(() => readIndex(gitdir)).toThrowError('.git/index uses format version 4, which memvault cannot update');
    git(root, 'update-index', '--index-version', '2');
    git(root, 'update-index', '--split-index');
    expect(() => readIndex(gitdir)).toThrowError(/uses the `link` extension \(split or sparse index\)/);
  });

  it("honours git's index.lock: refuses while it exists and leaves it alone", () => {
    const root = repoWithWork();
    const gitdir = path.join(root, '.git');
    writeFileSync(path.join(gitdir, 'index.lock'), 'held by git');
    let error: unknown;
    try {
      writeIndex(gitdir, readIndex(gitdir));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toBe('the git index is locked (.git/index.lock exists): another git command is running');
    expect((error as UserError).hint).toContain('delete .git/index.lock');
    expect(readFileSync(path.join(gitdir, 'index.lock'), 'utf8')).toBe('held by git');
  });

  it('refuses to update an unmerged path', () => {
    const root = repoWithWork();
    git(root, 'checkout', '-q', '-b', 'side');
    writeFiles(root, { 'a.txt': 'side\n' });
    git(root, 'commit', '-q', '-am', 'side');
    git(root, 'checkout', '-q', 'main');
    writeFiles(root, { 'a.txt': 'main\n' });
    git(root, 'commit', '-q', '-am', 'main');
    expect(gitStatus(root, 'merge', 'side').code).not.toBe(0);
    const gitdir = path.join(root, '.git');
    const update = new Map([['a.txt', entryFor('a.txt', blobOid(Buffer.from('x')), stat(root, 'a.txt'))]]);
    expect(() => updateEntries(readIndex(gitdir), update)).toThrowError('`a.txt` is unmerged in the git index');
  });
});

describe('tree edits', () => {
  it('changes only the given paths, creates folders, and drops folders left empty', async () => {
    const root = repoWithWork();
    const repo = findRepo(root)!;
    const head = git(root, 'rev-parse', 'HEAD^{tree}').trim();
    const blob = git(root, 'hash-object', '-w', '--stdin', '--no-filters').trim();
    mkdirSync(path.join(root, 'x'), { recursive: true });
    const tree = editTree(repo, head, new Map([
      ['dir/sub/c.txt', null],
      ['deep/er/new.md', { oid: blob, mode: '100644' }],
      ['a.txt', { oid: blob, mode: '100644' }],
    ]));
    expect(git(root, 'ls-tree', '-r', '--name-only', tree).trim().split('\n')).toEqual(['a.txt', 'deep/er/new.md', 'dir/b.txt', 'memory.config.yaml', 'run.sh']);
    expect(git(root, 'rev-parse', `${tree}:dir/b.txt`)).toBe(git(root, 'rev-parse', 'HEAD:dir/b.txt'));
    expect(git(root, 'ls-tree', tree, 'run.sh')).toMatch(/^100755 blob /);
    // No change at all gives the same tree back, without writing anything.
    expect(editTree(repo, head, new Map([['a.txt', { oid: git(root, 'rev-parse', 'HEAD:a.txt').trim(), mode: '100644' }]]))).toBe(head);
    expect(gitStatus(root, 'fsck', '--strict').code).toBe(0);
  });
});
