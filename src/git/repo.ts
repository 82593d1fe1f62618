import fs, { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import git, { type TreeEntry } from 'isomorphic-git';
import { UserError } from '../util/errors.js';

/**
 * The git repository holding a vault: found upwards from a folder, with the
 * branch HEAD points to and the state checks a commit needs. Reading uses
 * isomorphic-git (loose and packed objects alike).
 */

export interface Repo {
  /** Absolute work-tree root. */
  dir: string;
  /** Absolute git directory (usually `<dir>/.git`). */
  gitdir: string;
  /** Shared isomorphic-git object cache for one command. */
  cache: object;
  /** Parsed trees by id (trees never change): a lookup walks a path through memory, not through loose objects. */
  trees: Map<string, TreeEntry[]>;
}

export interface Identity {
  name: string;
  email: string;
}

/** The identity used when neither the config, the environment nor git configures one. */
export const FALLBACK_IDENTITY: Identity = { name: 'memvault', email: 'memvault@users.noreply.local' };

/**
 * The repository whose work tree contains `start` (searching upwards for
 * `.git`), or undefined when there is none. A `.git` file (submodule) is
 * followed; a linked worktree (`commondir`) is refused.
 */
export function findRepo(start: string): Repo | undefined {
  let dir = path.resolve(start);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    if (existsSync(dotGit)) {
      const gitdir = statSync(dotGit).isDirectory() ? dotGit : gitdirFromFile(dotGit, dir);
      if (existsSync(path.join(gitdir, 'commondir'))) {
        throw new UserError(`\`${dir}\` is a linked git worktree, which memvault cannot commit to`, 'build in the main work tree, or use --no-commit', 'git/worktree');
      }
      return { dir, gitdir, cache: {}, trees: new Map() };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function gitdirFromFile(file: string, dir: string): string {
  const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(file, 'utf8'));
  if (!match) throw new UserError(`\`${file}\` is neither a git directory nor a \`gitdir:\` file`, 'repair the repository', 'git/dotgit');
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

/** Reads `.git/HEAD`: the branch and its commit, or the detached commit. */
export async function headState(repo: Repo): Promise<HeadState> {
  const head = readFileSync(path.join(repo.gitdir, 'HEAD'), 'utf8').trim();
  const match = /^ref:\s*(refs\/heads\/.+)$/.exec(head);
  if (!match) return { detached: head };
  const ref = match[1]!;
  let oid: string | undefined;
  try {
    oid = await git.resolveRef({ fs, gitdir: repo.gitdir, ref });
  } catch {
    oid = undefined; // an unborn branch: no commits yet
  }
  return { branch: ref.slice('refs/heads/'.length), ref, oid };
}

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
 * `GIT_AUTHOR_NAME`/`GIT_AUTHOR_EMAIL`, the repository's `user.name`/`user.email`,
 * the global git config, then `FALLBACK_IDENTITY`.
 */
export async function resolveIdentity(repo: Repo, configured: Identity | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Identity> {
  if (configured) return configured;
  if (env.GIT_AUTHOR_NAME && env.GIT_AUTHOR_EMAIL) return { name: env.GIT_AUTHOR_NAME, email: env.GIT_AUTHOR_EMAIL };
  const local = { name: await localConfig(repo, 'user.name'), email: await localConfig(repo, 'user.email') };
  const global = globalUser(env);
  const name = local.name ?? global.name;
  const email = local.email ?? global.email;
  return name && email ? { name, email } : FALLBACK_IDENTITY;
}

async function localConfig(repo: Repo, key: string): Promise<string | undefined> {
  try {
    const value: unknown = await git.getConfig({ fs, gitdir: repo.gitdir, path: key });
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `[user] name/email` of `~/.gitconfig` or `$XDG_CONFIG_HOME/git/config` (no includes). */
function globalUser(env: NodeJS.ProcessEnv): { name?: string; email?: string } {
  const home = env.HOME ?? os.homedir();
  const files = [path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'git', 'config'), path.join(home, '.gitconfig')];
  const out: { name?: string; email?: string } = {};
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    let section = '';
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      const header = /^\[([^\]\s"]+)(?:\s+"[^"]*")?\]/.exec(line);
      if (header) {
        section = header[1]!.toLowerCase();
        continue;
      }
      const entry = /^(name|email)\s*=\s*(.*)$/i.exec(line);
      if (section === 'user' && entry) {
        const value = entry[2]!.replace(/^"(.*)"$/, '$1').trim();
        if (value) out[entry[1]!.toLowerCase() as 'name' | 'email'] = value;
      }
    }
  }
  return out;
}
