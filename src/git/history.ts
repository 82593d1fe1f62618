import fs from 'node:fs';
import git, { type CommitObject } from 'isomorphic-git';
import { DateTime } from 'luxon';
import { UserError } from '../util/errors.js';
import { ARCHIVED_FOLDERS } from '../time/tiers.js';
import type { Repo } from './repo.js';

/**
 * A file's history along the first-parent chain of HEAD (what the branch
 * looked like, build after build), for `memvault log`, `diff` and `show`.
 * A vault file is followed through the archive: a memory in
 * `<stream>/memories/<rest>` is the same file as
 * `<stream>/archive/<quarter>/<rest>`, a daily or weekly in
 * `<stream>/daily/<day>.md` the same as `<stream>/archive/<quarter>/daily/<day>.md`.
 */

/** Where a file is at a commit, and its blob. */
export interface Located {
  /** Repository-relative path of the file at that commit. */
  path: string;
  blob: string;
}

/** What the history commands show of a commit. */
export interface CommitInfo {
  oid: string;
  /** Committer time, seconds since the epoch. */
  timestamp: number;
  subject: string;
  author: string;
  parent: string | undefined;
}

/** One change of a file: the commit that made it and what it did. */
export interface FileVersion {
  commit: CommitInfo;
  change: 'added' | 'modified' | 'moved' | 'deleted';
  /** The file at this commit (for `deleted`: where it was before). */
  path: string;
  /** Blob id, null when deleted. */
  blob: string | null;
}

/**
 * Reads one file's versions from a repository.
 *
 * @example
 *   const history = new FileHistory(repo, 'vault');
 *   const versions = await history.versions(headOid, 'vault/main/weekly/2026-W07.md');
 */
export class FileHistory {
  constructor(
    readonly repo: Repo,
    /** The vault folder relative to the work tree ('' for the root), for following archive moves. */
    private readonly vaultPrefix: string | undefined,
  ) {}

  private readonly commits = new Map<string, CommitInfo & { tree: string }>();

  async commit(oid: string): Promise<CommitInfo & { tree: string }> {
    const known = this.commits.get(oid);
    if (known) return known;
    const { commit } = await git.readCommit({ fs, gitdir: this.repo.gitdir, oid, cache: this.repo.cache });
    const info = {
      oid,
      timestamp: commit.committer.timestamp,
      subject: commit.message.split('\n')[0] ?? '',
      author: `${commit.author.name} <${commit.author.email}>`,
      parent: commit.parent[0],
      tree: commit.tree,
    };
    this.commits.set(oid, info);
    return info;
  }

  /** The file at `commitOid`: at `repoPath`, else at its archive or pre-archive place. */
  async locate(commitOid: string, repoPath: string): Promise<Located | undefined> {
    const { tree } = await this.commit(commitOid);
    const direct = await this.blobAt(tree, repoPath);
    if (direct) return { path: repoPath, blob: direct.oid };
    for (const candidate of await this.counterparts(tree, repoPath)) {
      const found = await this.blobAt(tree, candidate);
      if (found) return { path: candidate, blob: found.oid };
    }
    return undefined;
  }

  /** Every change to the file, newest first, walking HEAD's first parents. */
  async versions(head: string, repoPath: string): Promise<FileVersion[]> {
    const out: FileVersion[] = [];
    let oid: string | undefined = head;
    let current = await this.locate(head, repoPath);
    while (oid) {
      const info = await this.commit(oid);
      const before = info.parent ? await this.locate(info.parent, repoPath).catch(() => undefined) : undefined;
      if (current && !before) out.push({ commit: info, change: 'added', path: current.path, blob: current.blob });
      else if (!current && before) out.push({ commit: info, change: 'deleted', path: before.path, blob: null });
      else if (current && before && current.blob !== before.blob)
        out.push({ commit: info, change: 'modified', path: current.path, blob: current.blob });
      else if (current && before && current.path !== before.path)
        out.push({ commit: info, change: 'moved', path: current.path, blob: current.blob });
      oid = info.parent && (await this.exists(info.parent)) ? info.parent : undefined;
      current = before;
    }
    return out;
  }

  /**
   * The version before the one at `commitOid`: walks back to the commit that
   * introduced that content, then takes the file as it was just before.
   */
  async previous(commitOid: string, repoPath: string): Promise<{ commit: CommitInfo; located: Located } | undefined> {
    const at = await this.locate(commitOid, repoPath);
    let oid: string | undefined = commitOid;
    while (oid) {
      const info = await this.commit(oid);
      if (!info.parent || !(await this.exists(info.parent))) return undefined;
      const before = await this.locate(info.parent, repoPath);
      if (!before) return undefined;
      if (before.blob !== at?.blob) return { commit: await this.commit(info.parent), located: before };
      oid = info.parent;
    }
    return undefined;
  }

  async readText(blob: string): Promise<string> {
    const { blob: bytes } = await git.readBlob({ fs, gitdir: this.repo.gitdir, oid: blob, cache: this.repo.cache });
    return Buffer.from(bytes).toString('utf8');
  }

  private async exists(oid: string): Promise<boolean> {
    try {
      await git.readCommit({ fs, gitdir: this.repo.gitdir, oid, cache: this.repo.cache });
      return true;
    } catch {
      return false; // a shallow clone's boundary
    }
  }

  /** Where else the file may sit at a commit: archived, or not yet archived. */
  private async counterparts(tree: string, repoPath: string): Promise<string[]> {
    if (this.vaultPrefix === undefined) return [];
    const prefix = this.vaultPrefix ? `${this.vaultPrefix}/` : '';
    if (!repoPath.startsWith(prefix)) return [];
    const parts = repoPath.slice(prefix.length).split('/');
    const stream = parts[0];
    if (!stream || parts.length < 3) return [];
    const folder = parts[1]!;
    const archiveDir = `${prefix}${stream}/archive`;
    if (folder === 'archive' && parts.length >= 4) {
      const rest = parts.slice(3);
      const out = [`${prefix}${stream}/memories/${rest.join('/')}`];
      if (rest.length === 2 && ARCHIVED_FOLDERS.has(rest[0]!)) out.unshift(`${prefix}${stream}/${rest.join('/')}`);
      return out;
    }
    const rest = folder === 'memories' ? parts.slice(2).join('/') : ARCHIVED_FOLDERS.has(folder) ? parts.slice(1).join('/') : undefined;
    if (rest === undefined) return [];
    const quarters = await this.folders(tree, archiveDir);
    return quarters.map((quarter) => `${archiveDir}/${quarter}/${rest}`);
  }

  private async folders(tree: string, dir: string): Promise<string[]> {
    const oid = await this.walk(tree, dir.split('/'));
    return oid
      ? (await this.entries(oid))
          .filter((e) => e.type === 'tree')
          .map((e) => e.path)
          .sort()
          .reverse()
      : [];
  }

  /** The blob at `filepath` in a tree, if a file is there. */
  private async blobAt(tree: string, filepath: string): Promise<{ oid: string; mode: string } | undefined> {
    const parts = filepath.split('/');
    const dir = await this.walk(tree, parts.slice(0, -1));
    const entry = dir ? (await this.entries(dir)).find((e) => e.path === parts[parts.length - 1]) : undefined;
    return entry?.type === 'blob' ? { oid: entry.oid, mode: entry.mode } : undefined;
  }

  /** The tree id at the end of `parts` (folder names), if each is a folder. */
  private async walk(tree: string, parts: readonly string[]): Promise<string | undefined> {
    let oid = tree;
    for (const part of parts) {
      const entry = (await this.entries(oid)).find((e) => e.path === part);
      if (entry?.type !== 'tree') return undefined;
      oid = entry.oid;
    }
    return oid;
  }

  /** A tree's entries through isomorphic-git, kept by id (trees never change). */
  private async entries(oid: string): Promise<{ mode: string; path: string; oid: string; type: string }[]> {
    let known = this.repo.trees.get(oid);
    if (!known) {
      known = (await git.readTree({ fs, gitdir: this.repo.gitdir, oid, cache: this.repo.cache })).tree;
      this.repo.trees.set(oid, known);
    }
    return known;
  }
}

/**
 * Resolves a revision to a commit id. Accepted: `HEAD`, a branch or tag,
 * a commit id or a prefix of one (4+ hex digits), each optionally followed
 * by `~N` / `^` / `^N`; or a date — `YYYY-MM-DD` (the end of that day in
 * `zone`) or an ISO datetime — meaning the newest commit of HEAD's
 * first-parent chain made at or before it.
 */
export async function resolveRevision(repo: Repo, head: string, revision: string, zone: string): Promise<string> {
  const asDate = parseDate(revision, zone);
  if (asDate) return commitAsOf(repo, head, asDate, revision);
  const match = /^(.+?)((?:~\d*|\^\d*)*)$/.exec(revision);
  if (!match) throw unknownRevision(revision);
  let oid = await resolveBase(repo, match[1]!, revision);
  for (const step of match[2]!.match(/~\d*|\^\d*/g) ?? []) {
    const n = step.length > 1 ? Number(step.slice(1)) : 1;
    if (step.startsWith('~')) {
      for (let i = 0; i < n; i++) oid = (await parents(repo, oid, revision))[0]!;
    } else if (n > 0) {
      const list = await parents(repo, oid, revision);
      if (!list[n - 1]) throw unknownRevision(revision, `\`${oid.slice(0, 7)}\` has ${list.length} parent(s)`);
      oid = list[n - 1]!;
    }
  }
  return oid;
}

function parseDate(text: string, zone: string): Date | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const day = DateTime.fromISO(text, { zone });
    return day.isValid ? day.endOf('day').toJSDate() : undefined;
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const instant = DateTime.fromISO(text, { zone });
    return instant.isValid ? instant.toJSDate() : undefined;
  }
  return undefined;
}

async function commitAsOf(repo: Repo, head: string, instant: Date, label: string): Promise<string> {
  let oid: string | undefined = head;
  let oldest: CommitObject | undefined;
  while (oid) {
    const { commit }: { commit: CommitObject } = await git.readCommit({ fs, gitdir: repo.gitdir, oid, cache: repo.cache });
    if (commit.committer.timestamp * 1000 <= instant.getTime()) return oid;
    oldest = commit;
    oid = commit.parent[0];
  }
  const first = oldest
    ? DateTime.fromSeconds(oldest.committer.timestamp, { zone: 'utc' }).toISO({ suppressMilliseconds: true })
    : undefined;
  const reason = `there is no commit on or before ${label}`;
  throw new UserError('git/no-commit-then', reason, { first: first ?? '' }, first ? {} : { hint: 'the branch has no commits yet' });
}

async function resolveBase(repo: Repo, base: string, revision: string): Promise<string> {
  try {
    const oid = await git.resolveRef({ fs, gitdir: repo.gitdir, ref: base });
    return await peel(repo, oid);
  } catch {
    // not a ref
  }
  if (/^[0-9a-f]{4,40}$/i.test(base)) {
    try {
      return await peel(repo, await git.expandOid({ fs, gitdir: repo.gitdir, oid: base.toLowerCase(), cache: repo.cache }));
    } catch {
      // not an object either
    }
  }
  throw unknownRevision(revision);
}

/** Tag → commit. */
async function peel(repo: Repo, oid: string): Promise<string> {
  const result = await git.readCommit({ fs, gitdir: repo.gitdir, oid, cache: repo.cache });
  return result.oid;
}

async function parents(repo: Repo, oid: string, revision: string): Promise<string[]> {
  const { commit } = await git.readCommit({ fs, gitdir: repo.gitdir, oid, cache: repo.cache });
  if (commit.parent.length === 0) throw unknownRevision(revision, `\`${oid.slice(0, 7)}\` is the first commit`);
  return commit.parent;
}

function unknownRevision(revision: string, why?: string): UserError {
  return new UserError('git/revision', `unknown revision \`${revision}\`${why ? ` (${why})` : ''}`);
}

/** `2026-02-16 07:00 +01:00`: a commit time in the configured zone. */
export function formatTime(timestamp: number, zone: string): string {
  return DateTime.fromSeconds(timestamp, { zone }).toFormat('yyyy-MM-dd HH:mm ZZ');
}
