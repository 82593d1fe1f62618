import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isTempPath, writeFileAtomic } from '../util/atomic.js';
import { UserError } from '../util/errors.js';
import { gitBackend, localOffsetMinutes, type GitBackend, type Signature, type Staging, type TreeFile } from './backend.js';
import { RECORD_DIR } from '../vault/paths.js';
import { conflictMarkerLine } from '../vault/memory-file.js';
import { crashPoint } from '../util/crash-point.js';
import { findRepo, operationInProgress, repoRelative, resolveIdentity, type Identity, type Repo } from './repo.js';

/**
 * One commit of exactly the paths a build names, made from HEAD's tree, so
 * nothing outside those paths (a person's staged or unstaged work anywhere
 * else) is ever committed. Afterwards the git index holds the committed
 * content for those paths, so `git status` is clean for them and untouched
 * for everything else. The git work itself goes through a backend
 * (backend.ts): the git command, or isomorphic-git where there is none.
 *
 * Crash safety: objects are written first, then the branch is moved with a
 * compare-and-swap under git's ref lock, then the index. A marker in the
 * project's state folder is written before a build changes anything and
 * removed once its commit is done: a build that finds the marker knows the
 * previous one died, and commits every change under the vault (a scan
 * limited to the vault folder) besides its own.
 */

export interface CommitSession {
  backend: GitBackend;
  repo: Repo;
  /** The vault folder relative to the work tree ('' when the vault is the work tree). */
  vaultPrefix: string;
  branch: string;
  ref: string;
  /** The commit HEAD pointed to when the build started; undefined on a branch without commits. */
  parent: string | undefined;
  /** Who commits, looked up on first use: a build that commits nothing starts no `git config` process. */
  identity: () => Promise<Identity>;
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
 * refuses (UserError) in a detached HEAD, during a merge, rebase,
 * cherry-pick, revert or bisect, and in a repository the backend cannot
 * commit to; returns a skip note when committing is off or the vault is not
 * in a git repository. Then writes the pending marker.
 */
export async function openCommitSession(options: OpenOptions): Promise<CommitSession | CommitSkip> {
  if (!options.enabled) return { status: 'disabled', note: 'commit disabled (--no-commit or git.commit: false)' };
  const repo = findRepo(options.vaultDir);
  const vaultPrefix = repo ? repoRelative(repo, options.vaultDir) : undefined;
  if (!repo || vaultPrefix === undefined) {
    return {
      status: 'not-a-repo',
      note: "not a git repository: files written, nothing committed (run `git init` to keep the vault's history)",
    };
  }
  const operation = operationInProgress(repo);
  if (operation) {
    throw new UserError('git/in-progress', `${operation} is in progress in ${repo.dir}; memvault does not commit in the middle of it`);
  }
  const backend = await gitBackend(options.env);
  const head = await backend.headState(repo);
  let identity: Promise<Identity> | undefined;
  // git.author in the config usually names it; else git config is read, with the commit's first lookups.
  const lookUpIdentity = () => (identity ??= resolveIdentity(backend, repo, options.author, options.env));
  if ('detached' in head) {
    throw new UserError('git/detached', `HEAD is detached (at ${head.detached.slice(0, 12)}); memvault commits only on a branch`);
  }
  await backend.checkCommittable(repo);
  const markerPath = path.join(options.stateDir, MARKER);
  const recover = existsSync(markerPath);
  mkdirSync(options.stateDir, { recursive: true });
  writeFileAtomic(markerPath, `${JSON.stringify({ pid: process.pid, branch: head.branch, parent: head.oid ?? null })}\n`);
  return {
    backend,
    repo,
    vaultPrefix,
    branch: head.branch,
    ref: head.ref,
    parent: head.oid,
    identity: lookUpIdentity,
    recover,
    markerPath,
  };
}

/**
 * Stores the blobs of files the build wrote (vault paths) while the build goes on, before its commit: git writes an
 * object once, so the commit's `hash-object -w` then finds them stored and only hashes them (at 20,000 memories ~1.5 MB
 * of index, manifest and summaries are compressed beside the record's writing instead of after it). Nothing refers to
 * these objects until the commit does, which hashes every file again (one changed since gets its own blob); a failure
 * here is left for the commit to meet. The git command only (`GitBackend.storeBlobs`).
 */
export async function storeAhead(session: CommitSession | CommitSkip | undefined, vaultPaths: readonly string[]): Promise<void> {
  if (!session || 'status' in session || !session.backend.storeBlobs) return;
  const repoPaths = vaultPaths
    .filter((file) => !isTempPath(file) && lstatOrUndefined(path.join(session.repo.dir, session.vaultPrefix, ...file.split('/')))?.isFile())
    .map((file) => (session.vaultPrefix ? `${session.vaultPrefix}/${file}` : file));
  try {
    await session.backend.storeBlobs(session.repo, repoPaths);
  } catch {
    // The commit hashes and stores every file itself.
  }
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
  const { repo, backend } = session;
  const toRepo = (vaultPath: string) => (session.vaultPrefix ? `${session.vaultPrefix}/${vaultPath}` : vaultPath);
  const pinned = new Map([...request.pinned].map(([p, sha]) => [toRepo(p), sha]));
  const { candidates, recoveredOnly } = await commitCandidates(session, request, toRepo);
  // Nothing named and nothing left by a crash (a no-change build): no commit and no index entry to settle, so no git process.
  if (candidates.size === 0) {
    rmSync(session.markerPath, { force: true });
    return { status: 'unchanged', branch: session.branch, recovered: session.recover };
  }
  // Checked together with the first lookups below (all read-only): each git process costs a round trip.
  const headNow = backend.headState(repo);
  headNow.catch(() => undefined);
  const identity = session.identity();
  identity.catch(() => undefined);

  const staging = await backend.stage(repo, session.parent);
  try {
    const sorted = [...candidates].sort();
    const { missing, present } = readCandidates(repo, sorted, pinned);
    // Blobs are stored while the parent is looked up: an ignored new file's blob stays unreferenced (git gc prunes it).
    const lookups = [
      headNow,
      staging.filesAt(sorted),
      staging.ignored(present.map((file) => file.path)),
      staging.hashFiles(present),
    ] as const;
    const [head, inHead, ignored, presentOids] = await Promise.all(lookups);
    if ('detached' in head || head.ref !== session.ref || head.oid !== session.parent) {
      throw new UserError(
        'git/head-moved',
        `the branch moved while the build was running (HEAD is now ${'detached' in head ? head.detached.slice(0, 12) : (head.oid?.slice(0, 12) ?? 'unborn')})`,
      );
    }
    const { treeChanges, settled } = planTreeChanges({ missing, present, presentOids, inHead, ignored, recoveredOnly });
    const outcome = await commitAndMoveBranch(session, request, staging, treeChanges, settled, identity);
    try {
      await staging.refreshIndex(settled);
    } catch (error) {
      const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
      // The marker stays: the next build's recovery scan finds the paths whose index entry lags behind HEAD and refreshes them.
      const done = outcome.status === 'committed' ? `committed ${outcome.oid.slice(0, 12)}, but ` : '';
      throw new UserError('git/index-update', `${done}the git index could not be updated (${why})`);
    }
    rmSync(session.markerPath, { force: true });
    return outcome;
  } finally {
    await staging.close();
  }
}

/**
 * The repository paths to commit: those the request names and pins and,
 * after a crash only, what the one scan of the whole vault finds (markdown
 * and JSON that differ between HEAD, index and work tree, and the committed
 * record's shards: a build killed after the branch moved left their index
 * entries behind HEAD). `recoveredOnly`: found by that scan alone.
 */
async function commitCandidates(
  session: CommitSession,
  request: CommitRequest,
  toRepo: (vaultPath: string) => string,
): Promise<{ candidates: Set<string>; recoveredOnly: Set<string> }> {
  const candidates = new Set([...request.paths, ...request.pinned.keys()].map(toRepo));
  const recoveredOnly = new Set<string>();
  if (!session.recover) return { candidates, recoveredOnly };
  const keep = new Set([...request.keep].map(toRepo));
  const record = `${toRepo(RECORD_DIR)}/`;
  for (const p of await session.backend.changedUnder(session.repo, session.vaultPrefix)) {
    if (!(/\.(md|json)$/i.test(p) || (p.startsWith(record) && p.endsWith('.jsonl'))) || keep.has(p)) continue;
    if (!candidates.has(p)) recoveredOnly.add(p);
    candidates.add(p);
  }
  return { candidates, recoveredOnly };
}

/** A work-tree file to commit: its bytes and git mode. */
interface PresentFile {
  path: string;
  bytes: Buffer;
  mode: string;
}

/**
 * Reads the candidates from the work tree: `missing` ones are gone from it;
 * `present` ones are regular files, minus a pinned one whose content changed
 * since and a memory a merge left half unresolved (the load reports it,
 * memory/conflict-markers): never committed, not even by the recovery scan,
 * so a build cannot turn a person's unfinished merge into history.
 */
function readCandidates(
  repo: Repo,
  sorted: readonly string[],
  pinned: ReadonlyMap<string, string>,
): { missing: string[]; present: PresentFile[] } {
  const missing: string[] = [];
  const present: PresentFile[] = [];
  for (const repoPath of sorted) {
    const absolute = path.join(repo.dir, ...repoPath.split('/'));
    const stat = lstatOrUndefined(absolute);
    if (!stat) missing.push(repoPath);
    if (!stat?.isFile()) continue;
    const bytes = readFileSync(absolute);
    const expected = pinned.get(repoPath);
    if (expected !== undefined && createHash('sha256').update(bytes).digest('hex') !== expected) continue;
    if (repoPath.endsWith('.md') && bytes.includes('<<<<<<<') && conflictMarkerLine(bytes.toString('utf8')) !== undefined) continue;
    present.push({ path: repoPath, bytes, mode: stat.mode & 0o111 ? '100755' : '100644' });
  }
  return { missing, present };
}

/**
 * The changes to HEAD's tree (a file, or null to remove it) and the paths
 * whose index entry is then brought to what is committed (their work-tree
 * content, or removed). Pure: what git knows comes in as arguments.
 */
function planTreeChanges(input: {
  missing: readonly string[];
  present: readonly PresentFile[];
  /** The blob id of each present file, in order. */
  presentOids: readonly string[];
  inHead: ReadonlyMap<string, TreeFile>;
  ignored: ReadonlySet<string>;
  recoveredOnly: ReadonlySet<string>;
}): { treeChanges: Map<string, TreeFile | null>; settled: string[] } {
  const { missing, present, presentOids, inHead, ignored, recoveredOnly } = input;
  const treeChanges = new Map<string, TreeFile | null>();
  const settled: string[] = [];
  const deletedOnDisk: { path: string; oid: string }[] = [];
  for (const repoPath of missing) {
    const committed = inHead.get(repoPath);
    // A deletion found only by the recovery scan is committed only as half of a move (an archive rename):
    // a file a person deleted is theirs to commit.
    if (recoveredOnly.has(repoPath)) {
      if (committed) deletedOnDisk.push({ path: repoPath, oid: committed.oid });
      // In neither HEAD nor the work tree, only in the index: what a build killed after moving the branch leaves.
      else settled.push(repoPath);
      continue;
    }
    if (committed) treeChanges.set(repoPath, null);
    settled.push(repoPath);
  }
  // Only a path new to the tree can be ignored: a tracked file is committed whatever .gitignore says, as git does.
  const newBlobs = new Set<string>();
  present.forEach((file, i) => {
    if (!inHead.has(file.path) && ignored.has(file.path)) return;
    const oid = presentOids[i]!;
    const committed = inHead.get(file.path);
    if (!committed || committed.oid !== oid || committed.mode !== file.mode) {
      treeChanges.set(file.path, { oid, mode: file.mode });
      newBlobs.add(oid);
    }
    settled.push(file.path);
  });
  for (const deleted of deletedOnDisk) {
    if (!newBlobs.has(deleted.oid)) continue;
    treeChanges.set(deleted.path, null);
    settled.push(deleted.path);
  }
  return { treeChanges, settled };
}

/**
 * Writes the commit and moves the branch to it (compare-and-swap), when the
 * tree changes; else nothing is committed. Either way, waits for git's index
 * lock when index entries are to be settled: the index is updated after the
 * branch, and a lock held then would leave the branch moved and the index behind.
 */
async function commitAndMoveBranch(
  session: CommitSession,
  request: CommitRequest,
  staging: Staging,
  treeChanges: Map<string, TreeFile | null>,
  settled: readonly string[],
  identity: Promise<Identity>,
): Promise<CommitOutcome> {
  if (treeChanges.size === 0) {
    if (settled.length > 0) await waitForIndexLock(session.repo);
    return { status: 'unchanged', branch: session.branch, recovered: session.recover };
  }
  const who: Signature = {
    ...(await identity),
    seconds: Math.floor(request.now.getTime() / 1000),
    offsetMinutes: localOffsetMinutes(request.now),
  };
  const message = request.message.endsWith('\n') ? request.message : `${request.message}\n`;
  const oid = await staging.commit(treeChanges, message, who);
  crashPoint('commit');
  await waitForIndexLock(session.repo);
  await staging.moveRef(session.ref, oid, session.parent, message.split('\n')[0]!, who);
  crashPoint('commit-ref');
  const files = [...treeChanges.keys()].sort();
  return { status: 'committed', oid, branch: session.branch, message: request.message, files, recovered: session.recover };
}

/**
 * Git holds `index.lock` for the length of one command (an editor's `git status` included): wait a little for it, then
 * refuse before the branch moves, so a stale lock never leaves a moved branch with an index that shows the commit reverted.
 */
async function waitForIndexLock(repo: Repo): Promise<void> {
  const lock = path.join(repo.gitdir, 'index.lock');
  for (let waited = 0; existsSync(lock); waited += 100) {
    if (waited >= 2000) {
      const reason = `the git index is locked (${path.relative(repo.dir, lock)} exists): another git process is running, or a stale .git/index.lock`;
      throw new UserError('git/index-locked', reason);
    }
    await sleep(100);
  }
}

function lstatOrUndefined(file: string) {
  try {
    return lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}
