import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { writeFileAtomic } from '../../util/atomic.js';
import { hashValue } from '../../util/hash.js';
import type { LoadedVault } from '../../vault/load.js';
import { searchDocuments, textReader, type SearchDoc } from './documents.js';
import { ANALYZER_VERSION, createIndex, INDEX_OPTIONS, syncIndex, type IndexedDoc, type SearchIndex, type SyncCounts } from './index.js';

/**
 * The search index on disk: `.memvault/search/index.json` (minisearch's
 * serialised index plus the content hash of every document in it) and a
 * small `state.json` (format version and a fingerprint of every path and
 * hash), so a build with nothing new for the index reads 100 bytes, not the
 * index. A file from another format version, or one that cannot be read, is
 * rebuilt from the vault.
 */

/** Bump when the layout of index.json changes. */
export const FORMAT_VERSION = 1;

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

// The last index this process read or wrote, so `watch` (and the MCP server) update it in memory instead of reading it back each time.
let memo: { file: string; stamp: string; loaded: LoadedIndex } | undefined;

function stampOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'none';
  }
}

/** Reads the index under `root`; undefined when it is missing, unreadable or of another version. */
export function readIndex(root: string): LoadedIndex | undefined {
  const file = path.join(searchDir(root), 'index.json');
  const stamp = stampOf(file);
  if (memo && memo.file === file && memo.stamp === stamp) return memo.loaded;
  if (stamp === 'none') return undefined;
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredIndex;
    if (stored.format !== FORMAT_VERSION || stored.analyzer !== ANALYZER_VERSION || typeof stored.docs !== 'object') return undefined;
    const loaded = { index: MiniSearch.loadJS<IndexedDoc>(stored.index as Parameters<typeof MiniSearch.loadJS>[0], INDEX_OPTIONS), known: new Map(Object.entries(stored.docs)) };
    memo = { file, stamp, loaded };
    return loaded;
  } catch {
    return undefined;
  }
}

function writeIndex(root: string, loaded: LoadedIndex, fingerprint: string): void {
  const dir = searchDir(root);
  mkdirSync(dir, { recursive: true });
  const stored: StoredIndex = { format: FORMAT_VERSION, analyzer: ANALYZER_VERSION, docs: Object.fromEntries(loaded.known), index: loaded.index.toJSON() };
  const file = path.join(dir, 'index.json');
  writeFileAtomic(file, JSON.stringify(stored));
  const stamp = stampOf(file);
  writeFileAtomic(path.join(dir, 'state.json'), `${JSON.stringify({ format: FORMAT_VERSION, analyzer: ANALYZER_VERSION, fingerprint, index: stamp })}\n`);
  memo = { file, stamp, loaded };
}

function fingerprintOf(docs: readonly SearchDoc[]): string {
  return hashValue({ format: FORMAT_VERSION, analyzer: ANALYZER_VERSION, docs: docs.map((doc) => [doc.id, doc.sha256]) });
}

function storedFingerprint(root: string): string | undefined {
  try {
    const state = JSON.parse(readFileSync(path.join(searchDir(root), 'state.json'), 'utf8')) as { fingerprint?: unknown; index?: unknown };
    // Trusted only for the index.json it was written with: one changed or removed since is read (and rebuilt if need be).
    return typeof state.fingerprint === 'string' && state.index === stampOf(path.join(searchDir(root), 'index.json')) ? state.fingerprint : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Brings the index on disk up to date with a loaded vault: what changed
 * only (one edited memory re-indexes one document); built from scratch when
 * missing or of another version. Called by the build (and so by watch) and by
 * the read commands when they find no index; `readIndex` then returns it
 * from memory.
 *
 * @example
 *   const report = updateSearchIndex(root, await loadVault(options)); // { added: 0, updated: 1, removed: 0, rebuilt: false, … }
 */
export function updateSearchIndex(root: string, vault: LoadedVault): IndexReport {
  const started = performance.now();
  const docs = searchDocuments(vault);
  const fingerprint = fingerprintOf(docs);
  const report = (counts: SyncCounts, rebuilt: boolean, written: boolean): IndexReport => ({ documents: docs.length, ...counts, rebuilt, written, ms: Math.round(performance.now() - started) });
  if (storedFingerprint(root) === fingerprint) return report({ added: 0, updated: 0, removed: 0 }, false, false);
  const existing = readIndex(root);
  const loaded = existing ?? { index: createIndex(), known: new Map<string, string>() };
  const counts = syncIndex(loaded.index, loaded.known, docs, textReader(vault));
  writeIndex(root, loaded, fingerprint);
  return report(counts, !existing, true);
}
