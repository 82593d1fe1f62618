import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { memory } from '../helpers/project.js';

/**
 * Git helpers for tests: real repositories in temporary folders (made by
 * `createProject`), driven and inspected with the real `git` CLI, never with
 * memvault's own git code. Fixed identities and dates so commit ids are
 * reproducible.
 */

/** The identity memvault's commits carry in these tests (`git.author` in the config). */
export const AUTHOR = { name: 'Vault Bot', email: 'vault-bot@example.org' };

/** A config with a fixed commit author; `extra` is appended as YAML. */
export function gitConfig(extra = ''): string {
  return `timezone: UTC\ngit:\n  author: { name: ${AUTHOR.name}, email: ${AUTHOR.email} }\n${extra}`;
}

/** Runs `git <args>` in `cwd` and returns stdout (throws with stderr on failure). Dates and identity are pinned for commits made here. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test Person',
      GIT_AUTHOR_EMAIL: 'person@example.org',
      GIT_COMMITTER_NAME: 'Test Person',
      GIT_COMMITTER_EMAIL: 'person@example.org',
      GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Like `git`, but returns the exit status and output instead of throwing. */
export function gitStatus(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  try {
    return { code: 0, stdout: git(cwd, ...args), stderr: '' };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** `git init` on `branch` with a local identity, no hooks, no signing. */
export function initRepo(cwd: string, branch = 'main'): void {
  git(cwd, 'init', '-q', '-b', branch);
  git(cwd, 'config', 'user.name', 'Repo User');
  git(cwd, 'config', 'user.email', 'repo-user@example.org');
  git(cwd, 'config', 'commit.gpgsign', 'false');
  git(cwd, 'config', 'core.hooksPath', '/dev/null');
}

/**
 * A new repository in a temp folder (`git init` with `init`'s extra arguments, e.g. `--object-format=sha256`), no
 * signing, no hooks; its folder is pushed on `dirs` for the test file's cleanup.
 */
export function tempRepo(dirs: string[], prefix: string, init: readonly string[] = []): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  git(dir, 'init', '-q', '-b', 'main', ...init);
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'config', 'core.hooksPath', '/dev/null');
  return dir;
}

/** Commits everything in the work tree as a person would (`git add -A && git commit`). */
export function commitAll(cwd: string, message: string): string {
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '-m', message);
  return git(cwd, 'rev-parse', 'HEAD').trim();
}

/** `git status --porcelain` lines (untracked files included). */
export function porcelain(cwd: string): string[] {
  return git(cwd, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean);
}

/** Every file path in a commit's tree (default HEAD). */
export function filesAt(cwd: string, rev = 'HEAD'): string[] {
  return git(cwd, 'ls-tree', '-r', '--name-only', rev).split('\n').filter(Boolean);
}

/** `git show --name-status` of a commit: `[status, path]` pairs (renames as `R100` with `old -> new`). */
export function changedIn(cwd: string, rev = 'HEAD'): string[][] {
  return (
    git(cwd, 'show', '--format=', '--name-status', '-M', rev)
      .split('\n')
      .filter(Boolean)
      // The committed record (src/vault/committed-record.ts) goes with every build that changes the vault: test/fresh-clone.test.ts covers it.
      .filter((line) => !line.includes('/.memvault-record/'))
      .map((line) => line.split('\t'))
  );
}

/** Number of commits on HEAD (0 for an unborn branch). */
export function commitCount(cwd: string): number {
  const result = gitStatus(cwd, 'rev-list', '--count', 'HEAD');
  return result.code === 0 ? Number(result.stdout.trim()) : 0;
}

/** Files under `dir` (relative POSIX paths), `.git` and `.memvault` excluded. */
export function workTreeFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (child === '.git' || child === '.memvault') continue;
      if (entry.isDirectory()) walk(child);
      else if (statSync(path.join(dir, child)).isFile()) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/** The base names of memory files in a list of paths (under `memories/` or `archive/`), which identify them across moves. */
export function memoryNames(paths: readonly string[]): string[] {
  return paths
    .filter((p) => /\/(memories|archive)\//.test(p) && !/\/archive\/[^/]+\/(daily|weekly)\//.test(p))
    .map((p) => path.posix.basename(p))
    .sort();
}

const TOPICS = ['billing', 'search', 'auth', 'queue', 'deploys', 'alerts', 'exports'];

/** `day` plus `n` days (`YYYY-MM-DD`, UTC). */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Short memories for one day (2, or 3 every third day), so summaries are
 * merges and builds stay fast: project-relative path → file text.
 */
export function shortMemories(day: string, n: number): Record<string, string> {
  const count = n % 3 === 0 ? 3 : 2;
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const topic = TOPICS[(n + i) % TOPICS.length]!;
    files[`vault/main/memories/${day.slice(0, 7)}/${day}-${i + 1}-${topic}.md`] = memory({
      date: `${day}T${String(9 + i * 4).padStart(2, '0')}:15:00Z`,
      title: `${topic} work ${n}.${i}`,
      body: `Worked on ${topic} (day ${n}, note ${i}). Decision: keep ${topic} changes small and behind a flag.`,
    });
  }
  return files;
}

/** `shortMemories` for every day from `from` to `to` (included): the files, and the paths by day. */
export function shortHistory(from: string, to: string): { files: Record<string, string>; byDay: Map<string, string[]> } {
  const files: Record<string, string> = {};
  const byDay = new Map<string, string[]>();
  for (let n = 0, day = from; day <= to; n++, day = addDays(from, n)) {
    const today = shortMemories(day, n);
    Object.assign(files, today);
    byDay.set(day, Object.keys(today));
  }
  return { files, byDay };
}
