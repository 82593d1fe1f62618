import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { LoadedVault } from '../load/load.js';
import type { EmbeddingReport } from './embeddings/update.js';
import { digestsOf, pairMap, vaultPairs } from './buckets.js';
import {
  createAside,
  databaseFile,
  discardAside,
  installAside,
  isIndexDamage,
  openForReading,
  openForWriting,
  openInMemory,
  type RebuildReason,
} from './db.js';
import { searchDocuments, textReader, type SearchDoc } from './documents.js';
import { SearchIndex, syncIndex, type SyncCounts } from './index.js';

export { FORMAT_VERSION, searchDir, databaseFile, isIndexDamage } from './db.js';

/**
 * The search index on disk: one SQLite database, `.memvault/search/index.sqlite`
 * (db.ts, index.ts). Its `docs` table is the manifest: path → content hash of
 * every indexed document. A build compares the hashes the loader already
 * computed with it and rewrites only the documents that changed, in one
 * transaction; a reader opens the file and queries it, reading only the
 * pages its query touches. The file is derived and disposable: one that is
 * missing, damaged (on open, on a query, on a write), of another format or
 * analyzer version, or another program's SQLite database is rebuilt from the
 * vault, aside and swapped in (db.ts), and said so in the report, never
 * raised as an error.
 */

export interface LoadedIndex {
  index: SearchIndex;
}

export interface IndexReport extends SyncCounts {
  documents: number;
  /** True when the index was built from scratch (missing, unreadable, another version, not ours, or forced). */
  rebuilt: boolean;
  /** Why it was rebuilt. */
  reason?: RebuildReason | 'forced';
  /** False when nothing changed and the file was left as it was. */
  written: boolean;
  /** The build only: why the index could not be updated (it goes on without it; sync.ts). */
  error?: string;
  /** True when the file could not be written or read back and this process searches an index in memory (`ensureSearchIndex`). */
  inMemory?: boolean;
  ms: number;
  /** With an `embeddings` profile: what the build embedded (sync.ts). */
  embeddings?: EmbeddingReport;
}

// The connection this process holds per root (a long-lived process keeps its prepared statements), with the file it opened.
const open = new Map<string, { index: SearchIndex; inode: number }>();

const inodeOf = (root: string): number | undefined => {
  try {
    return statSync(databaseFile(root)).ino;
  } catch {
    return undefined;
  }
};

/** `inode` is the path's, taken before the file was opened: were it replaced in between, the next call opens it again. */
function remember(root: string, index: SearchIndex, inode: number | undefined): void {
  const held = open.get(root);
  if (held && held.index !== index) held.index.db.close();
  open.set(root, { index, inode: inode ?? -1 });
}

/**
 * The index under `root`, opened (or the connection this process already
 * holds: WAL shows it what a build committed since); undefined when it is
 * missing, unreadable or of another version.
 */
export function readIndex(root: string): LoadedIndex | undefined {
  const held = open.get(root);
  // The same file (a rebuild after damage makes a new one): the open connection sees every commit.
  const inode = inodeOf(root);
  if (held?.index.db.open && held.inode === inode) return { index: held.index };
  const db = openForReading(root);
  if (!db) return undefined;
  const index = new SearchIndex(db);
  remember(root, index, inode);
  return { index };
}

/**
 * Brings the index on disk up to date with a loaded vault: compares the
 * loader's content hashes with the `docs` table and rewrites the changed,
 * new and removed documents in one transaction (one edited memory: its few
 * documents); nothing is written when nothing changed. Built from scratch
 * (aside, then swapped in: db.ts) when missing, unreadable, of another
 * version or not ours, with `force`, with `damaged` (a caller found damage
 * the open did not show), and when the update itself meets damage: the
 * index is derived from the vault, so damage is never an error. Called by
 * the build (and so by watch) and through `ensureSearchIndex` by the read
 * commands.
 *
 * @example
 *   const report = updateSearchIndex(root, await loadVault(options)); // { added: 0, updated: 1, removed: 0, rebuilt: false, … }
 */
export function updateSearchIndex(root: string, vault: LoadedVault, options: UpdateOptions = {}): IndexReport {
  const started = performance.now();
  let reason: IndexReport['reason'] = options.force ? 'forced' : options.damaged ? 'unreadable' : undefined;
  if (reason === undefined) {
    try {
      const target = writable(root);
      if ('index' in target) return updateInPlace(target.index, vault, started);
      reason = target.fresh;
    } catch (error) {
      if (!isIndexDamage(error)) throw error;
      reason = 'unreadable';
    }
  }
  return rebuildAside(root, vault, reason, started);
}

export interface UpdateOptions {
  /** Rebuild from the vault whatever is on disk (`--reindex`). */
  force?: boolean;
  /** Rebuild from the vault: a query met damage the open did not show (reported as `unreadable`). */
  damaged?: boolean;
}

/** The connection to update in place (the one this process holds when it is still the file at the path), or why not. */
function writable(root: string): { index: SearchIndex } | { fresh: RebuildReason } {
  const held = open.get(root);
  const inode = inodeOf(root);
  if (held?.index.db.open && held.inode === inode) return { index: held.index };
  const opened = openForWriting(root);
  if (!('db' in opened)) return opened;
  const index = new SearchIndex(opened.db);
  remember(root, index, inode);
  return { index };
}

/** Rewrites the documents whose content hash changed; only buckets whose digests differ are compared row by row. */
function updateInPlace(index: SearchIndex, vault: LoadedVault, started: number): IndexReport {
  // Buckets whose digests differ are the only ones compared row by row; all of them when the index has no complete buckets yet.
  const stored = index.bucketDigests();
  let hashes: Map<string, string>;
  let known: Map<string, string>;
  let documents: number;
  if (stored) {
    const digests = digestsOf(vaultPairs(vault));
    documents = 0;
    const differ = new Set<string>();
    for (const [key, digest] of digests) {
      documents += digest.n;
      if (stored.get(key) !== digest.toString()) differ.add(key);
    }
    for (const key of stored.keys()) if (!digests.has(key)) differ.add(key);
    hashes = differ.size === 0 ? new Map() : pairMap(vaultPairs(vault, differ));
    known = differ.size === 0 ? new Map() : index.hashesIn(differ);
  } else {
    hashes = pairMap(vaultPairs(vault));
    known = index.hashes();
    documents = hashes.size;
  }
  const changed = new Set<string>();
  for (const [id, sha] of hashes) if (known.get(id) !== sha) changed.add(id);
  const gone = [...known.keys()].some((id) => !hashes.has(id));
  let counts: SyncCounts = { added: 0, updated: 0, removed: 0 };
  // Only the changed documents are built and their text read.
  if (changed.size > 0 || gone)
    counts = syncIndex(index, searchDocuments(vault, changed), textReader(vault, changed), onlyChangedOrGone(known, changed, hashes));
  if (!stored) index.fillBuckets();
  return {
    documents,
    ...counts,
    rebuilt: false,
    written: counts.added + counts.updated + counts.removed > 0,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * Builds the whole index from the vault in a file beside the index and renames it over the index: a reader (this
 * process's or another's) opens the old file or the complete new one, never a half-filled one, and two rebuilds at
 * once each install a complete index. The connection this process held to the old file is closed.
 */
function rebuildAside(root: string, vault: LoadedVault, reason: NonNullable<IndexReport['reason']>, started: number): IndexReport {
  const { db, file } = createAside(root);
  let counts: SyncCounts;
  try {
    const index = new SearchIndex(db);
    counts = syncIndex(index, searchDocuments(vault), textReader(vault), new Map());
    index.fillBuckets();
  } catch (error) {
    discardAside(db, file);
    throw error;
  }
  closeIndex(root);
  try {
    installAside(root, db, file);
  } catch (error) {
    discardAside(db, file);
    throw error;
  }
  return {
    documents: counts.added,
    ...counts,
    rebuilt: true,
    reason,
    written: true,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * The one way from a loaded vault to an index to query, for every reader that has the vault loaded (`memvault search`
 * building a missing index, `--reindex`, context, facts --check): update the index (rebuilt when missing, damaged,
 * foreign or outdated), read it back, and when it still cannot be read (damaged or replaced again meanwhile) rebuild
 * it once more. When even that cannot be read or written (a full disk, a folder it may not write), the vault is
 * indexed in memory for this process (`report.inMemory`): a search never fails because of its index.
 *
 * @example
 *   const { loaded, report } = ensureSearchIndex(root, vault.loaded); // report.reason: 'unreadable' after a damaged file
 */
export function ensureSearchIndex(
  root: string,
  vault: LoadedVault,
  options: EnsureOptions = {},
): { loaded: LoadedIndex; report: IndexReport } {
  const started = performance.now();
  let report: IndexReport | undefined;
  let loaded: LoadedIndex | undefined;
  if (!options.inMemory) {
    try {
      report = updateSearchIndex(root, vault, options);
      loaded = readIndex(root);
      if (!loaded) {
        // Unreadable right after it was written: replaced or damaged meanwhile. Once more, then memory.
        const again = updateSearchIndex(root, vault, { damaged: true });
        loaded = readIndex(root);
        if (!report.rebuilt) report = again;
      }
    } catch (error) {
      if (!isDiskError(error)) throw error;
    }
  }
  if (!loaded || !report) {
    const memory = inMemory(vault, report?.reason ?? (options.force ? 'forced' : 'unreadable'), started);
    return { loaded: { index: new SearchIndex(memory.db) }, report: memory.report };
  }
  // Damage a query meets later (pages the update did not read): rebuilt from this vault, else memory; said through `onRebuilt`.
  const index = loaded.index;
  index.recoverWith(() => {
    const again = performance.now();
    try {
      const rebuilt = updateSearchIndex(root, vault, { damaged: true });
      const inode = inodeOf(root);
      const db = openForReading(root);
      if (db) {
        open.set(root, { index, inode: inode ?? -1 });
        options.onRebuilt?.(rebuilt);
        return db;
      }
    } catch (error) {
      if (!isDiskError(error)) throw error;
    }
    const memory = inMemory(vault, 'unreadable', again);
    options.onRebuilt?.(memory.report);
    return memory.db;
  });
  return { loaded, report };
}

export interface EnsureOptions extends UpdateOptions {
  /** Index in memory without touching the file: the file failed a query even right after it was rebuilt. */
  inMemory?: boolean;
  /** Told when a later query met damage and the index was rebuilt (or indexed in memory) for it. */
  onRebuilt?: (report: IndexReport) => void;
}

/** The whole vault indexed in an in-memory database: what a process searches when the file cannot be used. */
function inMemory(
  vault: LoadedVault,
  reason: NonNullable<IndexReport['reason']>,
  started: number,
): { db: Database.Database; report: IndexReport } {
  const index = new SearchIndex(openInMemory());
  const counts = syncIndex(index, searchDocuments(vault), textReader(vault), new Map());
  const report: IndexReport = {
    documents: counts.added,
    ...counts,
    rebuilt: true,
    reason,
    written: false,
    inMemory: true,
    ms: Math.round(performance.now() - started),
  };
  return { db: index.db, report };
}

/** An error of SQLite or of the file system (not a bug of ours): the index file cannot be used, so memory is. */
const isDiskError = (error: unknown): boolean => typeof (error as { code?: unknown } | null)?.code === 'string';

/** What `syncIndex` compares with when it is given only the changed documents: their hashes, and the gone ones. */
function onlyChangedOrGone(known: Map<string, string>, changed: Set<string>, hashes: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of changed) {
    const sha = known.get(id);
    if (sha !== undefined) out.set(id, sha);
  }
  for (const [id, sha] of known) if (!hashes.has(id)) out.set(id, sha);
  return out;
}

/**
 * Whether the project has a search index for the build to keep current. A
 * fresh clone (a nightly job's checkout) has none: indexing every document
 * there would cost the whole history, so the first `memvault search` (or a
 * warm reader) builds it instead.
 */
export function hasSearchIndex(root: string): boolean {
  return existsSync(databaseFile(root));
}

/** Closes the connection this process holds for `root` (tests, and a process that is done with it). */
export function closeIndex(root: string): void {
  open.get(root)?.index.db.close();
  open.delete(root);
}

/** Closes every connection this process holds (tests: after each file, whose projects are gone). */
export function closeIndexes(): void {
  for (const root of [...open.keys()]) closeIndex(root);
}

export type { SearchDoc };
