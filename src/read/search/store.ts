import { existsSync, statSync } from 'node:fs';
import type { LoadedVault } from '../../vault/load.js';
import type { EmbeddingReport } from '../embeddings/update.js';
import { digestsOf, pairMap, vaultPairs } from './buckets.js';
import { databaseFile, openForReading, openForWriting, type RebuildReason } from './db.js';
import { searchDocuments, textReader, type SearchDoc } from './documents.js';
import { SearchIndex, syncIndex, type SyncCounts } from './index.js';

export { FORMAT_VERSION, searchDir, databaseFile } from './db.js';

/**
 * The search index on disk: one SQLite database, `.memvault/search/index.sqlite`
 * (db.ts, index.ts). Its `docs` table is the manifest: path → content hash of
 * every indexed document. A build compares the hashes the loader already
 * computed with it and rewrites only the documents that changed, in one
 * transaction; a reader opens the file and queries it, reading only the
 * pages its query touches. A database that is missing, unreadable or of
 * another format or analyzer version is rebuilt from the vault.
 */

export interface LoadedIndex {
  index: SearchIndex;
}

export interface IndexReport extends SyncCounts {
  documents: number;
  /** True when the index was built from scratch (missing, unreadable, or another version). */
  rebuilt: boolean;
  /** Why it was rebuilt. */
  reason?: RebuildReason | 'forced';
  /** False when nothing changed and the file was left as it was. */
  written: boolean;
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

function remember(root: string, index: SearchIndex): void {
  const held = open.get(root);
  if (held && held.index !== index) held.index.db.close();
  open.set(root, { index, inode: inodeOf(root) ?? -1 });
}

/**
 * The index under `root`, opened (or the connection this process already
 * holds: WAL shows it what a build committed since); undefined when it is
 * missing, unreadable or of another version.
 */
export function readIndex(root: string): LoadedIndex | undefined {
  const held = open.get(root);
  // The same file (a rebuild after damage makes a new one): the open connection sees every commit.
  if (held?.index.db.open && held.inode === inodeOf(root)) return { index: held.index };
  const db = openForReading(root);
  if (!db) return undefined;
  const index = new SearchIndex(db);
  remember(root, index);
  return { index };
}

function writable(root: string, force: boolean): { index: SearchIndex; fresh?: RebuildReason } {
  const held = open.get(root);
  if (!force && held && held.index.db.open && held.inode === inodeOf(root)) return { index: held.index };
  const { db, fresh } = openForWriting(root, force);
  const index = new SearchIndex(db);
  remember(root, index);
  return { index, ...(fresh ? { fresh } : {}) };
}

/**
 * Brings the index on disk up to date with a loaded vault: compares the
 * loader's content hashes with the `docs` table and rewrites the changed,
 * new and removed documents in one transaction (one edited memory: its few
 * documents); nothing is written when nothing changed. Built from scratch
 * when missing, unreadable or of another version, or with `force`. Called by
 * the build (and so by watch) and by the read commands when they find no
 * index.
 *
 * @example
 *   const report = updateSearchIndex(root, await loadVault(options)); // { added: 0, updated: 1, removed: 0, rebuilt: false, … }
 */
export function updateSearchIndex(root: string, vault: LoadedVault, options: { force?: boolean } = {}): IndexReport {
  const started = performance.now();
  const { index, fresh } = writable(root, options.force ?? false);
  // Buckets whose digests differ are the only ones compared row by row; all of them when the index has no complete buckets yet.
  const stored = fresh === undefined && !options.force ? index.bucketDigests() : undefined;
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
  const rebuilt = fresh !== undefined || options.force === true;
  return {
    documents,
    ...counts,
    rebuilt,
    ...(rebuilt ? { reason: options.force ? 'forced' : fresh } : {}),
    written: rebuilt || counts.added + counts.updated + counts.removed > 0,
    ms: Math.round(performance.now() - started),
  };
}

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

export type { SearchDoc };
