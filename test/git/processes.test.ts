import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitPaths, openCommitSession, type CommitRequest } from '../../src/git/commit.js';
import type { AUTHOR } from './helpers.js';
import { git, porcelain } from './helpers.js';

/**
 * How many git processes the commit path starts through the git command, read from git's own trace
 * (GIT_TRACE2_EVENT names every command it runs): each one costs a round trip and 10-20 ms of CPU,
 * and a build of a 20,000-memory vault runs them one stage after another. Real repositories, the real git CLI.
 */

const NOW = new Date('2026-02-16T06:00:00Z');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function repoWithHistory(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-processes-'));
  dirs.push(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'commit.gpgsign', 'false');
  write(dir, { '.gitignore': '.memvault/\n', 'vault/main/memories/a.md': 'a\n', 'vault/main/daily/2026-02-14.md': 'old\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'person');
  return dir;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

/** The git subcommands started while `fn` runs, in start order, from a trace2 event file. */
async function gitCommands<T>(dir: string, fn: (env: NodeJS.ProcessEnv) => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const trace = path.join(dir, '.git', `trace-${Math.random().toString(36).slice(2)}.json`);
  const previous = process.env.GIT_TRACE2_EVENT;
  // The cli backend passes the process environment on to git; the env argument covers the session's own lookups.
  process.env.GIT_TRACE2_EVENT = trace;
  try {
    const result = await fn({ ...process.env, MEMVAULT_GIT_BACKEND: 'cli' });
    let text = '';
    try {
      text = readFileSync(trace, 'utf8');
    } catch {
      // No git process at all.
    }
    const commands = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; name?: string })
      .filter((event) => event.event === 'cmd_name')
      .map((event) => event.name ?? '');
    return { result, commands };
  } finally {
    if (previous === undefined) delete process.env.GIT_TRACE2_EVENT;
    else process.env.GIT_TRACE2_EVENT = previous;
  }
}

describe('git processes of the commit path (git command backend)', () => {
  const request = (paths: string[]): CommitRequest => ({
    paths,
    pinned: new Map(),
    keep: new Set(),
    message: 'memvault: test\n',
    now: NOW,
  });
  const open = (dir: string, env: NodeJS.ProcessEnv, author: typeof AUTHOR | undefined) =>
    openCommitSession({ vaultDir: path.join(dir, 'vault'), stateDir: path.join(dir, '.memvault'), enabled: true, author, env });

  it('opens a session with one rev-parse, and a build that names nothing starts no further git process', async () => {
    const dir = repoWithHistory();
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const { result, commands } = await gitCommands(dir, async (env) => {
      const session = await open(dir, env, undefined);
      if ('status' in session) throw new Error(session.note);
      expect(session).toMatchObject({ branch: 'main', ref: 'refs/heads/main', parent: head, recover: false });
      return commitPaths(session, request([]));
    });
    expect(result).toEqual({ status: 'unchanged', branch: 'main', recovered: false });
    // No `git config` for the identity either: nothing was committed.
    expect(commands).toEqual(['rev-parse']);
    expect(() => readFileSync(path.join(dir, '.memvault', 'commit-pending.json'))).toThrow();
  });

  it('commits an edit and a new file with one process per step, and the identity from git config when the config names none', async () => {
    const dir = repoWithHistory();
    git(dir, 'config', 'user.name', 'Config Person');
    git(dir, 'config', 'user.email', 'config@example.org');
    write(dir, { 'vault/main/daily/2026-02-14.md': 'new\n', 'vault/main/daily/2026-02-15.md': 'daily\n' });
    const { result, commands } = await gitCommands(dir, async (env) => {
      // The environment names no author either (the test run may set one): git config is asked.
      const { GIT_AUTHOR_NAME: _name, GIT_AUTHOR_EMAIL: _email, ...withoutAuthor } = env;
      const session = await open(dir, withoutAuthor, undefined);
      if ('status' in session) throw new Error(session.note);
      return commitPaths(session, request(['main/daily/2026-02-14.md', 'main/daily/2026-02-15.md']));
    });
    expect(result).toMatchObject({ status: 'committed', files: ['vault/main/daily/2026-02-14.md', 'vault/main/daily/2026-02-15.md'] });
    expect(git(dir, 'log', '-1', '--format=%an <%ae>').trim()).toBe('Config Person <config@example.org>');
    expect(porcelain(dir)).toEqual([]);
    // The lookups run at once (their order in the trace varies); then one process per step, in this order.
    const lookups = ['check-ignore', 'config', 'hash-object', 'ls-tree', 'ls-tree', 'rev-parse'];
    expect(commands[0]).toBe('rev-parse');
    expect(commands.slice(1, 1 + lookups.length).sort()).toEqual(lookups);
    expect(commands.slice(1 + lookups.length)).toEqual(['mktree', 'commit-tree', 'update-ref', 'update-index']);
  });

  it('reads HEAD in one process on a branch and when detached, and still handles a branch without commits', async () => {
    const dir = repoWithHistory();
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    // A work-tree file named HEAD does not make the name ambiguous.
    write(dir, { HEAD: 'not a ref\n' });
    const { cliBackend } = await import('../../src/git/cli-backend.js');
    const repo = { dir, gitdir: path.join(dir, '.git'), cache: {}, trees: new Map() };
    const onBranch = await gitCommands(dir, () => cliBackend.headState(repo));
    expect(onBranch).toEqual({ result: { branch: 'main', ref: 'refs/heads/main', oid: head }, commands: ['rev-parse'] });
    git(dir, 'checkout', '-q', '--detach');
    expect(await cliBackend.headState(repo)).toEqual({ detached: head });
    git(dir, 'checkout', '-q', '--orphan', 'fresh');
    expect(await cliBackend.headState(repo)).toEqual({ branch: 'fresh', ref: 'refs/heads/fresh', oid: undefined });
  });
});
