import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/pipeline/build.js';
import { copyProject, createProject, removeProject, runCli, writeFiles } from '../helpers/project.js';
import { commitAll, filesAt, git, gitConfig, gitStatus, initRepo, memoryNames, porcelain, shortHistory } from './helpers.js';

/**
 * Issue: a stale `.git/index.lock` made the build fail after it moved the
 * branch, leaving an index that showed the rollup as staged deletions (a
 * `git commit` then reverted it). Now the build checks git's index lock
 * before the branch moves: it exits 1 with one line and a hint, HEAD and the
 * index stay as they were, and once the lock is gone the next build commits
 * everything. The refused build runs through the real CLI (its message),
 * the reference and the completing build in-process, with each git backend.
 */

const NOW = '2026-02-16T06:00:00Z';
const history = shortHistory('2026-02-09', '2026-02-13');
const roots: string[] = [];
/** A project with one commit and the memories on disk, not yet built. */
let setup: string;
/** The vault tree an uninterrupted build commits (a tree id: the same whichever backend wrote the commit). */
let referenceTree: string;
beforeAll(async () => {
  setup = createProject({ '.gitignore': '.memvault/\n' }, gitConfig());
  roots.push(setup);
  initRepo(setup);
  commitAll(setup, 'setup');
  writeFiles(setup, history.files);
  const reference = copyProject(setup);
  roots.push(reference);
  const clean = await build({ root: reference, now: new Date(NOW) });
  expect(clean.commit?.status).toBe('committed');
  referenceTree = git(reference, 'rev-parse', 'HEAD:vault').trim();
});
afterAll(() => roots.forEach(removeProject));

describe.each(['cli', 'isomorphic'])('a stale .git/index.lock (%s backend)', (backend) => {
  it('stops the build before the branch moves, with a one-line message and hint; the next build completes once it is removed', async () => {
    const base = copyProject(setup);
    roots.push(base);
    const env = { MEMVAULT_GIT_BACKEND: backend };

    const head = git(base, 'rev-parse', 'HEAD').trim();
    const lock = path.join(base, '.git', 'index.lock');
    writeFileSync(lock, '');
    const failed = await runCli(['build', '--now', NOW], { cwd: base, env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      new RegExp(
        /^memvault: the git index is locked \(\.git\/index\.lock exists\): another git process is running, or a stale \.git\/index\.lock\n/
          .source + / {2}hint: remove it if no git command is running/.source,
      ),
    );
    expect(git(base, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(existsSync(lock)).toBe(true);
    rmSync(lock);
    // Nothing is staged: the index still matches HEAD, so a `git commit` now would commit nothing of memvault's.
    expect(git(base, 'diff', '--cached', '--name-only')).toBe('');

    const next = await build({ root: base, now: new Date(NOW), env: { ...process.env, ...env } });
    expect(next.commit).toMatchObject({ status: 'committed', recovered: true });
    expect(git(base, 'rev-parse', 'HEAD:vault').trim()).toBe(referenceTree);
    expect(porcelain(base)).toEqual([]);
    expect(memoryNames(filesAt(base))).toEqual(memoryNames(Object.keys(history.files)));
    expect(gitStatus(base, 'fsck', '--strict', '--no-dangling').code).toBe(0);
  });
});
