import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { writeFileAtomic } from '../../util/atomic.js';
import { hashValue } from '../../util/hash.js';
import type { LoadedVault } from '../../vault/load.js';
import { searchDocuments, textReader, type SearchDoc } from './documents.js';
import {
  ANALYZER_VERSION,
  applyChange,
  createIndex,
  INDEX_OPTIONS,
  syncIndex,
  type IndexChange,
  type IndexedDoc,
  type SearchIndex,
  type SyncCounts,
} from './index.js';

/**
 * The search index on disk, under `.memvault/search/`:
 * - `index.json`: a snapshot (minisearch's serialised index and the content
 *   hash of every document in it);
 * - `changes.jsonl`: the documents added, replaced or removed since, one per
 *   line, replayed on read. Writing a 20,000-document snapshot takes seconds,
 *   appending one edited memory a millisecond; the snapshot is rewritten
 *   once the log holds more than `compactAfter` changes;
 * - `state.json`: format version and a fingerprint of every path and hash, so
 *   a build with nothing new for the index reads 200 bytes, not the index.
 * A snapshot from another format version, or files that cannot be read, are
 * rebuilt from the vault.
 */

/** Bump when the layout of the files changes. */
export const FORMAT_VERSION = 2;

export interface LoadedIndex {
  index: SearchIndex;
  /** Path → content hash of every indexed document. */
  known: Map<string, string>;
}

interface StoredIndex {
  format: number;
  analyzer: number;
  docs: Record<string, string>;
  index: unknown;
}

export interface IndexReport extends SyncCounts {
  documents: number;
  /** True when the index was built from scratch (missing, unreadable, or another version). */
  rebuilt: boolean;
  /** False when nothing changed and the files were left as they were. */
  written: boolean;
  ms: number;
}

export const searchDir = (root: string): string => path.join(root, '.memvault', 'search');
const files = (root: string) => ({
  snapshot: path.join(searchDir(root), 'index.json'),
  log: path.join(searchDir(root), 'changes.jsonl'),
  state: path.join(searchDir(root), 'state.json'),
});

// The last index this process read or wrote, so `watch` (and the MCP server) update it in memory instead of reading it back each time.
let memo: { root: string; stamp: string; loaded: LoadedIndex; logged: number } | undefined;

function stampOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'none';
  }
}

const stampOfIndex = (root: string): string => `${stampOf(files(root).snapshot)}|${stampOf(files(root).log)}`;

/** Reads the index under `root` (snapshot plus logged changes); undefined when it is missing, unreadable or of another version. */
export function readIndex(root: string): LoadedIndex | undefined {
  const stamp = stampOfIndex(root);
  if (memo && memo.root === root && memo.stamp === stamp) return memo.loaded;
  if (stamp.startsWith('none')) return undefined;
  try {
    const stored = JSON.parse(readFileSync(files(root).snapshot, 'utf8')) as StoredIndex;
    if (stored.format !== FORMAT_VERSION || stored.analyzer !== ANALYZER_VERSION || typeof stored.docs !== 'object') return undefined;
    const loaded = {
      index: MiniSearch.loadJS<IndexedDoc>(stored.index as Parameters<typeof MiniSearch.loadJS>[0], INDEX_OPTIONS),
      known: new Map(Object.entries(stored.docs)),
    };
    let logged = 0;
    let log = '';
    try {
      log = readFileSync(files(root).log, 'utf8');
    } catch {
      // No changes since the snapshot.
    }
    for (const line of log.split('\n')) {
      if (!line) continue;
      applyChange(loaded.index, loaded.known, JSON.parse(line) as IndexChange);
      logged++;
    }
    memo = { root, stamp, loaded, logged };
    return loaded;
  } catch {
    return undefined;
  }
}

function writeState(root: string, fingerprint: string): void {
  writeFileAtomic(
    files(root).state,
    `${JSON.stringify({ format: FORMAT_VERSION, analyzer: ANALYZER_VERSION, fingerprint, index: stampOfIndex(root) })}\n`,
  );
}

function writeSnapshot(root: string, loaded: LoadedIndex): void {
  mkdirSync(searchDir(root), { recursive: true });
  const stored: StoredIndex = {
    format: FORMAT_VERSION,
    analyzer: ANALYZER_VERSION,
    docs: Object.fromEntries(loaded.known),
    index: loaded.index.toJSON(),
  };
  writeFileAtomic(files(root).snapshot, JSON.stringify(stored));
  rmSync(files(root).log, { force: true });
}

function fingerprintOf(docs: readonly SearchDoc[]): string {
  return hashValue({ format: FORMAT_VERSION, analyzer: ANALYZER_VERSION, docs: docs.map((doc) => [doc.id, doc.sha256]) });
}

function storedFingerprint(root: string): string | undefined {
  try {
    const state = JSON.parse(readFileSync(files(root).state, 'utf8')) as { format?: unknown; fingerprint?: unknown; index?: unknown };
    // Trusted only for the files it was written with: a snapshot or log changed or removed since is read (and rebuilt if need be).
    return state.format === FORMAT_VERSION && typeof state.fingerprint === 'string' && state.index === stampOfIndex(root)
      ? state.fingerprint
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Brings the index on disk up to date with a loaded vault: what changed
 * only (one edited memory re-indexes one document and appends one line);
 * built from scratch when missing or of another version. Called by the build
 * (and so by watch) and by the read commands when they find no index;
 * `readIndex` then returns it from memory. `force` skips the check of
 * `state.json` (for a caller that found the index unreadable).
 *
 * @example
 *   const report = updateSearchIndex(root, await loadVault(options)); // { added: 0, updated: 1, removed: 0, rebuilt: false, … }
 */
export function updateSearchIndex(root: string, vault: LoadedVault, options: { compactAfter?: number; force?: boolean } = {}): IndexReport {
  const started = performance.now();
  const docs = searchDocuments(vault);
  const fingerprint = fingerprintOf(docs);
  const report = (counts: SyncCounts, rebuilt: boolean, written: boolean): IndexReport => ({
    documents: docs.length,
    ...counts,
    rebuilt,
    written,
    ms: Math.round(performance.now() - started),
  });
  // `force`: the caller found the index unreadable, whatever state.json says (file times are too coarse to catch every rewrite).
  if (!options.force && storedFingerprint(root) === fingerprint) return report({ added: 0, updated: 0, removed: 0 }, false, false);
  const existing = readIndex(root);
  const loaded = existing ?? { index: createIndex(), known: new Map<string, string>() };
  const changes: IndexChange[] = [];
  const counts = syncIndex(loaded.index, loaded.known, docs, textReader(vault), existing ? (change) => changes.push(change) : undefined);
  const logged = (memo?.loaded === loaded ? memo.logged : 0) + changes.length;
  const compactAfter = options.compactAfter ?? Math.max(200, Math.floor(docs.length / 20));
  if (!existing || logged > compactAfter) writeSnapshot(root, loaded);
  else if (changes.length > 0) appendFileSync(files(root).log, changes.map((change) => `${JSON.stringify(change)}\n`).join(''));
  writeState(root, fingerprint);
  memo = { root, stamp: stampOfIndex(root), loaded, logged: !existing || logged > compactAfter ? 0 : logged };
  return report(counts, !existing, true);
}
