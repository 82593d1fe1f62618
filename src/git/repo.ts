import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';

/**
 * The git repository holding a vault: found upwards from a folder, with the
 * state checks a commit needs. Refs, config and objects are read through the
 * backend (backend.ts); only the repository's folders and the marker files
 * of an operation in progress are looked at here.
 */

export interface Repo {
  /** Absolute work-tree root. */
  dir: string;
  /** Absolute git directory (usually `<dir>/.git`; `.git/worktrees/<name>` in a linked worktree). */
  gitdir: string;
  /** Shared isomorphic-git object cache for one command. */
  cache: object;
  /** Tree listings by id (trees never change), for the history commands. */
  trees: Map<string, { mode: string; path: string; oid: string; type: string }[]>;
}

export interface Identity {
  name: string;
  email: string;
}

/** The identity used when neither the config, the environment nor git configures one. */
export const FALLBACK_IDENTITY: Identity = { name: 'memvault', email: 'memvault@users.noreply.local' };

/**
 * The repository whose work tree contains `start` (searching upwards for
 * `.git`), or undefined when there is none. A `.git` file (submodule, linked
 * worktree) is followed.
 */
export function findRepo(start: string): Repo | undefined {
  let dir = path.resolve(start);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    if (existsSync(dotGit)) {
      const gitdir = statSync(dotGit).isDirectory() ? dotGit : gitdirFromFile(dotGit, dir);
      return { dir, gitdir, cache: {}, trees: new Map() };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function gitdirFromFile(file: string, dir: string): string {
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(file, 'utf8'));
  if (!match) throw new UserError('git/dotgit', `\`${file}\` is neither a git directory nor a \`gitdir:\` file`);
  return path.resolve(dir, match[1]!.trim());
}

/** `path` relative to the work tree, in POSIX form; undefined when it lies outside. */
export function repoRelative(repo: Repo, absolute: string): string | undefined {
  const relative = path.relative(repo.dir, absolute);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}

/** Where HEAD stands: on a branch (maybe without commits yet), or detached. */
export type HeadState = { branch: string; ref: string; oid: string | undefined } | { detached: string };

/** A git operation that must be finished before memvault may commit, if one is under way. */
export function operationInProgress(repo: Repo): string | undefined {
  const checks: [string, string][] = [
    ['MERGE_HEAD', 'a merge'],
    ['rebase-merge', 'a rebase'],
    ['rebase-apply', 'a rebase or `git am`'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick'],
    ['REVERT_HEAD', 'a revert'],
    ['BISECT_LOG', 'a bisect'],
  ];
  return checks.find(([file]) => existsSync(path.join(repo.gitdir, file)))?.[1];
}

/**
 * Who commits: the first of `configured` (memory.config.yaml `git.author`),
 * `GIT_AUTHOR_NAME`/`GIT_AUTHOR_EMAIL`, git's configured `user.name`/`user.email`
 * (as the backend reads them), then `FALLBACK_IDENTITY`.
 */
export async function resolveIdentity(
  backend: { configuredIdentity(repo: Repo): Promise<Identity | undefined> },
  repo: Repo,
  configured: Identity | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Identity> {
  if (configured) return configured;
  if (env.GIT_AUTHOR_NAME && env.GIT_AUTHOR_EMAIL) return { name: env.GIT_AUTHOR_NAME, email: env.GIT_AUTHOR_EMAIL };
  return (await backend.configuredIdentity(repo)) ?? FALLBACK_IDENTITY;
}
