import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitPaths, openCommitSession, type CommitRequest } from '../../src/git/commit.js';
import { git, gitStatus, porcelain, tempRepo } from './helpers.js';

/**
 * The commit path against both git backends (the git command and
 * isomorphic-git), in process, on real repositories checked with the real git
 * CLI: exactly the named paths, a person's staged and unstaged work untouched,
 * the index refreshed for those paths only, pinned memories, no empty
 * commits, refusals, the committer's time zone, SHA-256 repositories, clean
 * filters and a stale index.lock.
 */

const AUTHOR = { name: 'Vault Bot', email: 'vault-bot@example.org' };
const NOW = new Date('2026-02-16T06:00:00Z');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const repo = (init: string[] = []): string => tempRepo(dirs, 'memvault-backend-', init);

function write(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(['cli', 'isomorphic'] as const)('commit through the %s backend', (backend) => {
  const env = { ...process.env, MEMVAULT_GIT_BACKEND: backend };
  const open = (dir: string) =>
    openCommitSession({ vaultDir: path.join(dir, 'vault'), stateDir: path.join(dir, '.memvault'), enabled: true, author: AUTHOR, env });
  const commit = async (dir: string, request: Partial<CommitRequest>) => {
    const session = await open(dir);
    if ('status' in session) throw new Error(session.note);
    return commitPaths(session, { paths: [], pinned: new Map(), keep: new Set(), message: 'memvault: test\n', now: NOW, ...request });
  };

  /** A repository with history, a person's staged and unstaged work inside and outside the vault. */
  function busyRepo(): string {
    const dir = repo();
    write(dir, { 'README.md': '# r\n', '.gitignore': '.memvault/\nvault/ignored/\n', 'src/x.ts': 'x\n' });
    write(dir, { 'vault/main/memories/a.md': 'a\n', 'vault/main/memories/b.md': 'b\n', 'vault/main/daily/old.md': 'old\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'person');
    write(dir, { 'README.md': '# r\nunstaged\n', 'src/staged.ts': 'staged\n', 'vault/main/memories/b.md': 'b staged\n' });
    git(dir, 'add', 'src/staged.ts', 'vault/main/memories/b.md');
    write(dir, { 'vault/main/memories/b.md': 'b staged, then edited\n', 'notes.txt': 'untracked\n' });
    return dir;
  }

  it('commits exactly the named paths from HEAD, leaves other staged and unstaged changes alone, refreshes the index for those paths', async () => {
    const dir = busyRepo();
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    // Hooks never run for memvault's commits (plumbing only), whichever backend.
    const marker = path.join(dir, '.git', 'hook-ran');
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'reference-transaction', 'post-index-change']) {
      write(dir, { [`.git/test-hooks/${hook}`]: `#!/bin/sh\necho ${hook} >> "${marker}"\n` });
      chmodSync(path.join(dir, '.git', 'test-hooks', hook), 0o755);
    }
    git(dir, 'config', 'core.hooksPath', path.join(dir, '.git', 'test-hooks'));
    write(dir, { 'vault/main/daily/new.md': 'daily\n', 'vault/INDEX.md': 'index\n', 'vault/ignored/x.md': 'ignored\n' });
    rmSync(path.join(dir, 'vault/main/daily/old.md'));
    const outcome = await commit(dir, { paths: ['main/daily/new.md', 'INDEX.md', 'main/daily/old.md', 'ignored/x.md'] });
    // Checked before the test's own `git status`, which may rewrite the index and so run post-index-change itself.
    expect(existsSync(marker)).toBe(false);
    expect(outcome).toMatchObject({
      status: 'committed',
      branch: 'main',
      files: ['vault/INDEX.md', 'vault/main/daily/new.md', 'vault/main/daily/old.md'],
    });
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(before);
    const changed = git(dir, 'show', '--format=', '--name-status', 'HEAD').trim().split('\n').sort();
    expect(changed).toEqual(['A\tvault/INDEX.md', 'A\tvault/main/daily/new.md', 'D\tvault/main/daily/old.md']);
    expect(porcelain(dir)).toEqual([' M README.md', 'A  src/staged.ts', 'MM vault/main/memories/b.md', '?? notes.txt']);
    expect(git(dir, 'show', ':vault/main/memories/b.md')).toBe('b staged\n');
    expect(gitStatus(dir, 'fsck', '--strict', '--no-dangling').code).toBe(0);
    expect(existsSync(path.join(dir, '.memvault', 'commit-pending.json'))).toBe(false);
  });

  it('makes no commit when nothing changed, and commits a pinned memory only while it has the hash the build read', async () => {
    const dir = busyRepo();
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    expect(await commit(dir, { paths: ['main/memories/a.md'] })).toMatchObject({ status: 'unchanged' });
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    write(dir, { 'vault/main/memories/c.md': 'c\n', 'vault/main/memories/d.md': 'd, edited again during the build\n' });
    const outcome = await commit(dir, {
      paths: [],
      pinned: new Map([
        ['main/memories/c.md', sha256('c\n')],
        ['main/memories/d.md', sha256('d as read\n')],
      ]),
    });
    expect(outcome).toMatchObject({ status: 'committed', files: ['vault/main/memories/c.md'] });
    expect(porcelain(dir)).toContain('?? vault/main/memories/d.md');
  });

  it("makes the root commit on an unborn branch, in the committer's time zone", async () => {
    const dir = repo();
    write(dir, { 'vault/main/daily/2026-02-15.md': 'daily\n' });
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(await commit(dir, { paths: ['main/daily/2026-02-15.md'] })).toMatchObject({ status: 'committed' });
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    expect(git(dir, 'log', '-1', '--format=%P|%an <%ae>|%ci|%s').trim()).toBe(
      `|${AUTHOR.name} <${AUTHOR.email}>|2026-02-16 01:00:00 -0500|memvault: test`,
    );
    expect(porcelain(dir)).toEqual([]);
  });

  it('refuses a detached HEAD and a merge in progress, and a branch that moved during the build', async () => {
    const dir = busyRepo();
    git(dir, 'checkout', '-q', '--detach');
    await expect(open(dir)).rejects.toMatchObject({ rule: 'git/detached' });
    git(dir, 'checkout', '-q', 'main');
    writeFileSync(path.join(dir, '.git', 'MERGE_HEAD'), `${git(dir, 'rev-parse', 'HEAD')}`);
    await expect(open(dir)).rejects.toMatchObject({ rule: 'git/in-progress' });
    rmSync(path.join(dir, '.git', 'MERGE_HEAD'));
    const session = await open(dir);
    if ('status' in session) throw new Error(session.note);
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'meanwhile');
    write(dir, { 'vault/x.md': 'x\n' });
    const late = commitPaths(session, { paths: ['x.md'], pinned: new Map(), keep: new Set(), message: 'm', now: NOW });
    await expect(late).rejects.toMatchObject({ rule: 'git/head-moved' });
  });

  it('refuses to move the branch while .git/index.lock exists, leaves the lock alone, and the next commit completes once it is gone', async () => {
    const dir = busyRepo();
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    write(dir, { 'vault/main/daily/new.md': 'daily\n' });
    writeFileSync(path.join(dir, '.git', 'index.lock'), '');
    const error = await commit(dir, { paths: ['main/daily/new.md'] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ rule: 'git/index-locked', hint: expect.stringContaining('remove it if no git command is running') });
    expect((error as Error).message).toContain('another git process is running, or a stale .git/index.lock');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(existsSync(path.join(dir, '.git', 'index.lock'))).toBe(true);
    rmSync(path.join(dir, '.git', 'index.lock'));
    // The marker says a build died before committing: the next one also commits what it left.
    const next = await commit(dir, { paths: [] });
    expect(next).toMatchObject({ status: 'committed', recovered: true, files: ['vault/main/daily/new.md', 'vault/main/memories/b.md'] });
    expect(porcelain(dir).filter((line) => line.includes('vault/'))).toEqual([]);
  });

  it(`${backend === 'cli' ? 'commits' : 'refuses'} a SHA-256 repository`, async () => {
    const dir = repo(['--object-format=sha256']);
    write(dir, { 'vault/a.md': 'a\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    write(dir, { 'vault/b.md': 'b\n' });
    if (backend === 'isomorphic') {
      await expect(open(dir)).rejects.toMatchObject({
        rule: 'git/object-format',
        message: expect.stringContaining('SHA256 git repository'),
      });
      return;
    }
    const outcome = await commit(dir, { paths: ['b.md'] });
    expect(outcome).toMatchObject({ status: 'committed', oid: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(git(dir, 'show', 'HEAD:vault/b.md')).toBe('b\n');
    expect(gitStatus(dir, 'fsck', '--strict', '--no-dangling').code).toBe(0);
    expect(porcelain(dir)).toEqual([]);
  });

  it(`${backend === 'cli' ? 'applies' : 'refuses'} a clean filter named in .gitattributes`, async () => {
    const dir = repo();
    git(dir, 'config', 'filter.upper.clean', 'tr a-z A-Z');
    git(dir, 'config', 'filter.upper.smudge', 'cat');
    write(dir, { '.gitattributes': '*.md filter=upper\n', 'vault/a.md': 'first\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    write(dir, { 'vault/b.md': 'lower case text\n' });
    if (backend === 'isomorphic') {
      await expect(open(dir)).rejects.toMatchObject({
        rule: 'git/filter',
        message: expect.stringContaining('.gitattributes sets a git filter'),
      });
      return;
    }
    expect(await commit(dir, { paths: ['b.md'] })).toMatchObject({ status: 'committed' });
    expect(git(dir, 'show', 'HEAD:vault/b.md')).toBe('LOWER CASE TEXT\n');
    expect(git(dir, 'show', 'HEAD:vault/b.md')).toBe(git(dir, 'show', ':vault/b.md'));
    expect(porcelain(dir)).toEqual([]);
  });
});
