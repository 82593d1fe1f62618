import { createHash } from 'node:crypto';
import fs, { appendFileSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic.js';
import { UserError } from '../util/errors.js';
import { crashPoint } from './crash-point.js';
import { IgnoreRules } from './ignore.js';
import { commitContent, commitTree, writeLooseObject } from './objects.js';
import { entryFor, fileMode, readIndex, statMatches, updateIndexFile, type IndexEntry } from './index-file.js';
import { findRepo, headState, operationInProgress, readBranchRef, repoRelative, resolveIdentity, type Identity, type Repo } from './repo.js';
import { blobAt, editTree, type TreeChange } from './tree.js';

/**
 * One commit of exactly the paths a build names, made from HEAD's tree, so
 * nothing outside those paths (a person's staged or unstaged work anywhere
 * else) is ever committed. Afterwards the git index
 * holds the committed content for those paths, so `git status` is clean for
 * them and untouched for everything else.
 *
 * Crash safety: objects are written first, then the branch is moved by an
 * atomic rename (`<ref>.lock` → `<ref>`, git's own protocol), then the index
 * (same protocol). A marker in the project's state folder is written before
 * a build changes anything and removed once its commit is done: a build that
 * finds the marker knows the previous one died, and commits every change
 * under the vault (a scan limited to the vault folder) besides its own.
 */

export interface CommitSession {
  repo: Repo;
  /** The vault folder relative to the work tree ('' when the vault is the work tree). */
  vaultPrefix: string;
  branch: string;
  ref: string;
  /** The commit HEAD pointed to when the build started; undefined on a branch without commits. */
  parent: string | undefined;
  identity: Identity;
  /** The previous build died before committing: commit whatever it left under the vault. */
  recover: boolean;
  markerPath: string;
}

export type CommitSkip = { status: 'disabled'; note: string } | { status: 'not-a-repo'; note: string };

export interface OpenOptions {
  /** Absolute vault folder. */
  vaultDir: string;
  /** Absolute folder for the pending-commit marker (the project's `.memvault/`). */
  stateDir: string;
  enabled: boolean;
  /** `git.author` of memory.config.yaml, if set. */
  author: Identity | undefined;
  env?: NodeJS.ProcessEnv;
}

const MARKER = 'commit-pending.json';

/**
 * Checks that a commit will be possible before the build writes anything:
 * refuses (UserError) in a detached HEAD or during a merge, rebase,
 * cherry-pick, revert or bisect; returns a skip note when committing is off
 * or the vault is not in a git repository. Then writes the pending marker.
 */
export async function openCommitSession(options: OpenOptions): Promise<CommitSession | CommitSkip> {
  if (!options.enabled) return { status: 'disabled', note: 'commit disabled (--no-commit or git.commit: false)' };
  const repo = findRepo(options.vaultDir);
  const vaultPrefix = repo ? repoRelative(repo, options.vaultDir) : undefined;
  if (!repo || vaultPrefix === undefined) {
    return { status: 'not-a-repo', note: 'not a git repository: files written, nothing committed (run `git init` to keep the vault\'s history)' };
  }
  const operation = operationInProgress(repo);
  if (operation) {
    throw new UserError(
      `${operation} is in progress in ${repo.dir}; memvault does not commit in the middle of it`,
      'finish or abort it first; to resolve conflicts in generated files, run `memvault build --no-commit`, then `git add` them (see docs/git.md)',
      'git/in-progress',
    );
  }
  const head = headState(repo);
  if ('detached' in head) {
    throw new UserError(`HEAD is detached (at ${head.detached.slice(0, 12)}); memvault commits only on a branch`, 'switch to a branch (`git switch main`), or build with --no-commit', 'git/detached');
  }
  const markerPath = path.join(options.stateDir, MARKER);
  const recover = existsSync(markerPath);
  mkdirSync(options.stateDir, { recursive: true });
  writeFileAtomic(markerPath, `${JSON.stringify({ pid: process.pid, branch: head.branch, parent: head.oid ?? null })}\n`);
  return { repo, vaultPrefix, branch: head.branch, ref: head.ref, parent: head.oid, identity: resolveIdentity(repo, options.author, options.env), recover, markerPath };
}

export interface CommitRequest {
  /** Paths relative to the vault to commit as they are in the work tree (deleted ones are removed). */
  paths: readonly string[];
  /**
   * Paths (relative to the vault) committed only while their content still
   * has this SHA-256: the memories summaries were built from. A memory edited
   * again during the build is left for the next one.
   */
  pinned: ReadonlyMap<string, string>;
  /** Paths never committed by the recovery scan (summaries a person edited). */
  keep: ReadonlySet<string>;
  message: string;
  now: Date;
}

export type CommitOutcome =
  | { status: 'committed'; oid: string; branch: string; message: string; files: string[]; recovered: boolean }
  | { status: 'unchanged'; branch: string; recovered: boolean }
  | CommitSkip;

/** Commits `request.paths` (plus, after a crash, what the previous build left) on the session's branch. */
export async function commitPaths(session: CommitSession, request: CommitRequest): Promise<CommitOutcome> {
  try {
    return await commitPathsOpen(session, request);
  } finally {
    // `memvault watch` commits again and again in one process: no pack file handle may outlive its commit.
    session.repo.objects.close();
  }
}

async function commitPathsOpen(session: CommitSession, request: CommitRequest): Promise<CommitOutcome> {
  const { repo } = session;
  const head = headState(repo);
  if ('detached' in head || head.ref !== session.ref || head.oid !== session.parent) {
    throw new UserError(`the branch moved while the build was running (HEAD is now ${'detached' in head ? head.detached.slice(0, 12) : (head.oid?.slice(0, 12) ?? 'unborn')})`, 'run the build again: the files are written, the next build commits them', 'git/head-moved');
  }
  const toRepo = (vaultPath: string) => (session.vaultPrefix ? `${session.vaultPrefix}/${vaultPath}` : vaultPath);
  const pinned = new Map([...request.pinned].map(([p, sha]) => [toRepo(p), sha]));
  const candidates = new Set([...request.paths, ...request.pinned.keys()].map(toRepo));
  const recoveredOnly = new Set<string>();
  if (session.recover) {
    for (const p of await changedUnderVault(session, new Set([...request.keep].map(toRepo)))) {
      if (!candidates.has(p)) recoveredOnly.add(p);
      candidates.add(p);
    }
  }

  const headTree = session.parent ? commitTree(repo.objects.read(session.parent).content, session.parent) : undefined;
  const ignoreRules = new IgnoreRules(repo.dir, repo.gitdir);
  const index = readIndex(repo.gitdir);
  const indexed = new Map(index.entries.filter((e) => e.stage === 0).map((e) => [e.path, e]));
  const treeChanges = new Map<string, TreeChange>();
  const indexUpdates = new Map<string, IndexEntry | null>();
  const blobs = new Map<string, Buffer>();
  const deletedOnDisk: { path: string; oid: string }[] = [];

  for (const repoPath of [...candidates].sort()) {
    const absolute = path.join(repo.dir, ...repoPath.split('/'));
    const stat = lstatOrUndefined(absolute);
    const inHead = blobAt(repo, headTree, repoPath);
    if (stat && !stat.isFile()) continue;
    if (!stat) {
      // A deletion found only by the recovery scan is committed only as half of a move (an archive rename):
      // a file a person deleted is theirs to commit.
      if (recoveredOnly.has(repoPath)) {
        if (inHead) deletedOnDisk.push({ path: repoPath, oid: inHead.oid });
        // In neither HEAD nor the work tree, only in the index: what a build killed after moving the branch leaves.
        else if (indexed.has(repoPath)) indexUpdates.set(repoPath, null);
        continue;
      }
      if (inHead) treeChanges.set(repoPath, null);
      if (indexed.has(repoPath)) indexUpdates.set(repoPath, null);
      continue;
    }
    const current = indexed.get(repoPath);
    // git status's shortcut: the index says this file is HEAD's blob and its stat data proves it unchanged.
    if (current && inHead && current.oid === inHead.oid && inHead.mode === fileMode(stat).toString(8) && statMatches(current, stat, index)) continue;
    const bytes = readFileSync(absolute);
    const expected = pinned.get(repoPath);
    if (expected !== undefined && createHash('sha256').update(bytes).digest('hex') !== expected) continue;
    if (!inHead && ignoreRules.isIgnored(repoPath)) continue;
    const oid = blobOid(bytes);
    const mode = fileMode(stat).toString(8);
    if (!inHead || inHead.oid !== oid || inHead.mode !== mode) {
      treeChanges.set(repoPath, { oid, mode });
      blobs.set(oid, bytes);
    }
    if (!current || current.oid !== oid || current.fixed.readUInt32BE(24) !== fileMode(stat)) indexUpdates.set(repoPath, entryFor(repoPath, oid, stat));
  }

  for (const deleted of deletedOnDisk) {
    if (!blobs.has(deleted.oid)) continue;
    treeChanges.set(deleted.path, null);
    if (indexed.has(deleted.path)) indexUpdates.set(deleted.path, null);
  }

  let outcome: CommitOutcome = { status: 'unchanged', branch: session.branch, recovered: session.recover };
  if (treeChanges.size > 0) {
    for (const bytes of blobs.values()) writeLooseObject(repo.gitdir, 'blob', bytes);
    const tree = editTree(repo, headTree, treeChanges);
    if (tree !== headTree) {
      const signature = { name: session.identity.name, email: session.identity.email, timestamp: Math.floor(request.now.getTime() / 1000) };
      const message = request.message.endsWith('\n') ? request.message : `${request.message}\n`;
      const oid = writeLooseObject(repo.gitdir, 'commit', commitContent({ tree, parents: session.parent ? [session.parent] : [], author: signature, committer: signature, message }));
      crashPoint('commit');
      moveBranch(session, oid, request.message, signature);
      crashPoint('commit-ref');
      const files = [...treeChanges.keys()].sort();
      outcome = { status: 'committed', oid, branch: session.branch, message: request.message, files, recovered: session.recover };
    }
  }
  if (indexUpdates.size > 0) updateIndexFile(repo.gitdir, indexUpdates, index);
  rmSync(session.markerPath, { force: true });
  return outcome;
}

/** `git hash-object`: the blob id of some bytes. */
export function blobOid(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

function lstatOrUndefined(file: string) {
  try {
    return lstatSync(file, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Recovery after a crashed build: markdown and JSON files under the vault
 * that differ from HEAD in the work tree or the index (untracked, modified,
 * deleted), except `keep`. Read-only (`refresh: false`); this is the one
 * place that scans the whole vault, and it runs only after a crash.
 */
async function changedUnderVault(session: CommitSession, keep: ReadonlySet<string>): Promise<string[]> {
  const { repo } = session;
  const { default: git } = await import('isomorphic-git');
  const rows = await git.statusMatrix({ fs, dir: repo.dir, gitdir: repo.gitdir, filepaths: [session.vaultPrefix || '.'], refresh: false, cache: repo.cache });
  return rows
    .filter(([, headStatus, workdir, stage]) => !(headStatus === 1 && workdir === 1 && stage === 1))
    .map(([file]) => file)
    .filter((file) => /\.(md|json)$/i.test(file) && !keep.has(file));
}

/**
 * Points the branch at `oid` the way git does: checks it still points where
 * the build started (compare and swap), writes `<ref>.lock`, renames it over
 * the ref, and appends to the reflogs.
 */
function moveBranch(session: CommitSession, oid: string, message: string, who: { name: string; email: string; timestamp: number }): void {
  const { gitdir } = session.repo;
  const refPath = path.join(gitdir, ...session.ref.split('/'));
  mkdirSync(path.dirname(refPath), { recursive: true });
  const lockPath = `${refPath}.lock`;
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UserError(`the branch \`${session.branch}\` is locked (${path.relative(session.repo.dir, lockPath)} exists): another git command is updating it`, `wait for it to finish; if none is running, delete ${path.relative(session.repo.dir, lockPath)} and build again`, 'git/ref-locked');
    }
    throw error;
  }
  try {
    writeSync(fd, `${oid}\n`);
  } finally {
    closeSync(fd);
  }
  const current = readBranchRef(gitdir, session.ref);
  if (current !== session.parent) {
    rmSync(lockPath, { force: true });
    throw new UserError(`the branch \`${session.branch}\` moved while the build was running`, 'run the build again: the files are written, the next build commits them', 'git/head-moved');
  }
  renameSync(lockPath, refPath);
  const line = `${session.parent ?? '0'.repeat(40)} ${oid} ${who.name} <${who.email}> ${who.timestamp} +0000\tcommit${session.parent ? '' : ' (initial)'}: ${message.split('\n')[0]}\n`;
  for (const log of [path.join(gitdir, 'logs', ...session.ref.split('/')), path.join(gitdir, 'logs', 'HEAD')]) {
    try {
      mkdirSync(path.dirname(log), { recursive: true });
      appendFileSync(log, line);
    } catch {
      // A reflog is a convenience; the commit stands without it.
    }
  }
}
