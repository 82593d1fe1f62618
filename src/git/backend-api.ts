import type { HeadState, Identity, Repo } from './repo.js';

/**
 * The interface both git backends implement (cli-backend.ts, iso-backend.ts)
 * and the helpers they share; backend.ts picks one. Apart from backend.ts so
 * the backends import it without importing the module that imports them.
 */

/** A file as a tree holds it: mode (`100644`, `100755`, `120000`) and object id. */
export interface TreeFile {
  mode: string;
  oid: string;
}

/** Who a commit is by, and when (the offset is the committer's zone, as git writes it: minutes east of UTC). */
export interface Signature extends Identity {
  seconds: number;
  offsetMinutes: number;
}

/** One commit being prepared from a parent's tree: only the named paths are looked at and changed. */
export interface Staging {
  /** The parent's files at these repository paths (absent: not in the parent). */
  filesAt(paths: readonly string[]): Promise<Map<string, TreeFile>>;
  /** Which of these paths (not in the parent) git ignores. */
  ignored(paths: readonly string[]): Promise<Set<string>>;
  /** Stores the work-tree files at these paths as blobs (filters applied where the backend supports them) and returns their ids. */
  hashFiles(files: readonly { path: string; bytes: Buffer }[]): Promise<string[]>;
  /** Writes the parent's tree with `changes` applied (null removes a path) and a commit of it; returns the commit id. */
  commit(changes: ReadonlyMap<string, TreeFile | null>, message: string, who: Signature): Promise<string>;
  /** Moves `ref` from `parent` (undefined: must not exist) to `oid`, or throws `git/head-moved` / `git/ref-locked`. */
  moveRef(ref: string, oid: string, parent: string | undefined, subject: string, who: Signature): Promise<void>;
  /** Makes the person's index hold the work-tree content of exactly these paths (removed when gone). */
  refreshIndex(paths: readonly string[]): Promise<void>;
  /** Removes temporary state (the CLI's temporary index). */
  close(): Promise<void>;
}

export interface GitBackend {
  readonly kind: 'cli' | 'isomorphic';
  headState(repo: Repo): Promise<HeadState>;
  /** `user.name` and `user.email` as git configuration gives them, if both are set. */
  configuredIdentity(repo: Repo): Promise<Identity | undefined>;
  /** Refuses (UserError) a repository this backend cannot commit to correctly, before a build writes anything. */
  checkCommittable(repo: Repo): Promise<void>;
  /** Paths under `prefix` ('' for all) whose HEAD, index and work-tree versions differ: the recovery scan after a crash. */
  changedUnder(repo: Repo, prefix: string): Promise<string[]>;
  stage(repo: Repo, parent: string | undefined): Promise<Staging>;
  /**
   * Writes the blobs of these work-tree files (repository paths) to the object store, as a commit of them would store
   * them, ahead of the commit (git/commit.ts `storeAhead`). The git command only: isomorphic-git hashes in-process.
   */
  storeBlobs?(repo: Repo, paths: readonly string[]): Promise<void>;
  /**
   * The blob id a commit of each file would record (the path's clean filter and line-ending conversion applied), in
   * order; undefined for a file whose stored blob would not hold the file's own bytes (a filter or a conversion changes
   * them) or that the backend cannot hash as git does. The git command reads the work-tree files itself: a caller that
   * needs the id of `bytes` checks the file still holds them afterwards. Nothing is written to the object store.
   */
  blobIds(repo: Repo, files: readonly { path: string; bytes: Uint8Array }[]): Promise<(string | undefined)[]>;
  /**
   * Of `paths` (repository paths under `prefix`, '' for all), those whose work-tree file git calls unchanged against its
   * stage-0 index entry (stat data, else content) and whose checkout gives the blob's own bytes (no smudge filter, no
   * line-ending conversion), with that entry's blob id. Undefined when the backend cannot tell, or (isomorphic-git) when
   * telling costs more than reading the files: nothing is vouched for, and the caller reads them.
   */
  unchangedBlobs(repo: Repo, prefix: string, paths: readonly string[]): Promise<Map<string, string> | undefined>;
}

/** `+0100`-style offset of the local zone at `when`, in minutes east of UTC, as `git commit` would record it. */
export function localOffsetMinutes(when: Date): number {
  return -when.getTimezoneOffset();
}

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}
