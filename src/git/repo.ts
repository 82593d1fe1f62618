import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TreeEntry } from 'isomorphic-git';
import { UserError } from '../util/errors.js';
import { ObjectReader } from './objects.js';

/**
 * The git repository holding a vault: found upwards from a folder, with the
 * branch HEAD points to and the state checks a commit needs. Refs and config
 * are read from their files; objects through `ObjectReader` (objects.ts), so
 * a build's commit never loads isomorphic-git (~80 ms).
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
  /** Loose and packed objects. */
  objects: ObjectReader;
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
      return { dir, gitdir, cache: {}, trees: new Map(), objects: new ObjectReader(gitdir) };
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

/** Reads `.git/HEAD`: the branch and its commit (undefined on a branch without commits yet), or the detached commit. */
export function headState(repo: Repo): HeadState {
  const head = readFileSync(path.join(repo.gitdir, 'HEAD'), 'utf8').trim();
  const match = /^ref:\s*(refs\/heads\/.+)$/.exec(head);
  if (!match) return { detached: head };
  const ref = match[1]!;
  return { branch: ref.slice('refs/heads/'.length), ref, oid: readBranchRef(repo.gitdir, ref) };
}

/** The commit a branch ref points to, from its loose file, else from `packed-refs`; undefined for an unborn branch. */
export function readBranchRef(gitdir: string, ref: string): string | undefined {
  try {
    const value = readFileSync(path.join(gitdir, ...ref.split('/')), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(value)) return value;
  } catch {
    // not loose
  }
  try {
    for (const line of readFileSync(path.join(gitdir, 'packed-refs'), 'utf8').split('\n')) {
      const [oid, name] = line.trim().split(' ');
      if (name === ref && oid && /^[0-9a-f]{40}$/.test(oid)) return oid;
    }
  } catch {
    // no packed refs
  }
  return undefined;
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
export function resolveIdentity(repo: Repo, configured: Identity | undefined, env: NodeJS.ProcessEnv = process.env): Identity {
  if (configured) return configured;
  if (env.GIT_AUTHOR_NAME && env.GIT_AUTHOR_EMAIL) return { name: env.GIT_AUTHOR_NAME, email: env.GIT_AUTHOR_EMAIL };
  const local = userOfConfigFiles([path.join(repo.gitdir, 'config')]);
  const home = env.HOME ?? os.homedir();
  const global = userOfConfigFiles([path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'git', 'config'), path.join(home, '.gitconfig')]);
  const name = local.name ?? global.name;
  const email = local.email ?? global.email;
  return name && email ? { name, email } : FALLBACK_IDENTITY;
}

/** `[user] name/email` of git config files (later files and lines win; no includes). */
function userOfConfigFiles(files: readonly string[]): { name?: string; email?: string } {
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
