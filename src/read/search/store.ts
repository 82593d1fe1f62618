import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { writeFileAtomic } from '../../util/atomic.js';
import type { LoadedVault } from '../../vault/load.js';
import type { EmbeddingReport } from '../embeddings/update.js';
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
 * - `docs.json`: the manifest, path → content hash of every document the
 *   index holds (snapshot and log together), with the sizes of the snapshot
 *   and log it was written with. A build reads only this file: it compares
 *   the hashes the loader already computed and appends what changed, without
 *   loading the index itself (seconds at 20,000 memories);
 * - `index.json`: a snapshot (minisearch's serialised index and the hash of
 *   every document in it);
 * - `changes.jsonl`: the documents added, replaced or removed since the
 *   snapshot, one per line, replayed by readers. The build folds it into a
 *   new snapshot once it holds more than `compactAfter` changes.
 * A manifest or snapshot from another format version, or files that do not
 * agree with the manifest, are rebuilt from the vault.
 */

/** Bump when the layout of the files changes. */
export const FORMAT_VERSION = 3;

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

interface Manifest {
  format: number;
  analyzer: number;
  /** Size of `index.json` when the manifest was written: another size means another snapshot. */
  snapshotBytes: number;
  /** Size of `changes.jsonl` when the manifest was written: a shorter log lost changes the manifest counts as indexed. */
  logBytes: number;
  /** Changes in the log: the build compacts past `compactAfter`. */
  logged: number;
  docs: Record<string, string>;
}

export interface IndexReport extends SyncCounts {
  documents: number;
  /** True when the index was built from scratch (missing, unreadable, or another version). */
  rebuilt: boolean;
  /** False when nothing changed and the files were left as they were. */
  written: boolean;
  /** True when the change log was folded into a new snapshot. */
  compacted?: boolean;
  ms: number;
  /** With an `embeddings` profile: what the build embedded (sync.ts). */
  embeddings?: EmbeddingReport;
}

export const searchDir = (root: string): string => path.join(root, '.memvault', 'search');
const files = (root: string) => ({
  manifest: path.join(searchDir(root), 'docs.json'),
  snapshot: path.join(searchDir(root), 'index.json'),
  log: path.join(searchDir(root), 'changes.jsonl'),
});

/** Changes the log may hold before a build folds it into the snapshot: max(200, 5 % of the documents). */
export const defaultCompactAfter = (documents: number): number => Math.max(200, Math.floor(documents / 20));

// The index this process last read or wrote, per root, so a long-lived process (watch, MCP) replays only the log lines appended since.
interface Memo {
  loaded: LoadedIndex;
  snapshot: string;
  logOffset: number;
}
const memos = new Map<string, Memo>();
// The manifest this process last read or wrote, per root: watch rebuilds without parsing it again.
const manifests = new Map<string, { stamp: string; manifest: Manifest }>();

function statOf(file: string): { size: number; stamp: string } | undefined {
  try {
    const stat = statSync(file);
    return { size: stat.size, stamp: `${stat.size}:${stat.mtimeMs}:${stat.ino}` };
  } catch {
    return undefined;
  }
}

/** Bytes of `file` from `offset` to its end, cut after the last newline (a line being appended right now is left for later). */
function readTail(file: string, offset: number): { text: string; end: number } {
  const size = statOf(file)?.size ?? 0;
  if (size <= offset) return { text: '', end: offset };
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(size - offset);
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    const last = buffer.subarray(0, read).lastIndexOf(10);
    if (last < 0) return { text: '', end: offset };
    return { text: buffer.subarray(0, last + 1).toString('utf8'), end: offset + last + 1 };
  } finally {
    closeSync(fd);
  }
}

function replay(loaded: LoadedIndex, text: string): number {
  let applied = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    applyChange(loaded.index, loaded.known, JSON.parse(line) as IndexChange);
    applied++;
  }
  return applied;
}

/**
 * Reads the index under `root` (snapshot plus logged changes); undefined when
 * it is missing, unreadable or of another version. A process that read it
 * before gets the same index back with only the log lines appended since
 * replayed (a new snapshot is read in full).
 */
export function readIndex(root: string): LoadedIndex | undefined {
  const snapshot = statOf(files(root).snapshot);
  if (!snapshot) return undefined;
  const memo = memos.get(root);
  try {
    if (memo && memo.snapshot === snapshot.stamp && (statOf(files(root).log)?.size ?? 0) >= memo.logOffset) {
      const tail = readTail(files(root).log, memo.logOffset);
      replay(memo.loaded, tail.text);
      memo.logOffset = tail.end;
      return memo.loaded;
    }
    const stored = JSON.parse(readFileSync(files(root).snapshot, 'utf8')) as StoredIndex;
    if (stored.format !== FORMAT_VERSION || stored.analyzer !== ANALYZER_VERSION || typeof stored.docs !== 'object') return undefined;
    const loaded = {
      index: MiniSearch.loadJS<IndexedDoc>(stored.index as Parameters<typeof MiniSearch.loadJS>[0], INDEX_OPTIONS),
      known: new Map(Object.entries(stored.docs)),
    };
    const tail = readTail(files(root).log, 0);
    replay(loaded, tail.text);
    memos.set(root, { loaded, snapshot: snapshot.stamp, logOffset: tail.end });
    return loaded;
  } catch {
    memos.delete(root);
    return undefined;
  }
}

/** The manifest, if it is of this version and agrees with the snapshot and log on disk. */
function readManifest(root: string): Manifest | undefined {
  const stat = statOf(files(root).manifest);
  if (!stat) return undefined;
  let manifest = manifests.get(root)?.stamp === stat.stamp ? manifests.get(root)!.manifest : undefined;
  if (!manifest) {
    try {
      manifest = JSON.parse(readFileSync(files(root).manifest, 'utf8')) as Manifest;
    } catch {
      return undefined;
    }
    manifests.set(root, { stamp: stat.stamp, manifest });
  }
  if (manifest.format !== FORMAT_VERSION || manifest.analyzer !== ANALYZER_VERSION || typeof manifest.docs !== 'object') return undefined;
  if (statOf(files(root).snapshot)?.size !== manifest.snapshotBytes) return undefined;
  if ((statOf(files(root).log)?.size ?? 0) < manifest.logBytes) return undefined;
  return manifest;
}

function writeManifest(root: string, docs: Record<string, string>, logged: number): void {
  const manifest: Manifest = {
    format: FORMAT_VERSION,
    analyzer: ANALYZER_VERSION,
    snapshotBytes: statOf(files(root).snapshot)?.size ?? 0,
    logBytes: statOf(files(root).log)?.size ?? 0,
    logged,
    docs,
  };
  writeFileAtomic(files(root).manifest, JSON.stringify(manifest));
  const stat = statOf(files(root).manifest);
  if (stat) manifests.set(root, { stamp: stat.stamp, manifest });
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
  // Left by format 2: its fingerprint file is not read any more.
  rmSync(path.join(searchDir(root), 'state.json'), { force: true });
  memos.set(root, { loaded, snapshot: statOf(files(root).snapshot)!.stamp, logOffset: 0 });
}

/** Path and content hash of every document of the vault, straight from the loader (no document objects, no hashing). */
function hashesOf(vault: LoadedVault): Map<string, string> {
  const hashes = new Map<string, string>();
  for (const stream of vault.state.streams.values()) {
    for (const m of stream.memories) hashes.set(m.path, m.sha256);
    for (const s of stream.summaries.values()) hashes.set(s.path, s.sha256);
  }
  return hashes;
}

/**
 * Brings the index on disk up to date with a loaded vault. It reads the
 * manifest only, compares the loader's content hashes with it and appends
 * the changed documents to the log (one edited memory: one line, and the
 * manifest rewritten); a build with nothing new for the index writes
 * nothing. Past `compactAfter` logged changes the index is loaded and a new
 * snapshot written; it is built from scratch when missing, unreadable or of
 * another version. Called by the build (and so by watch) and by the read
 * commands when they find no index. `force` rebuilds (for a caller that found
 * the index unreadable).
 *
 * @example
 *   const report = updateSearchIndex(root, await loadVault(options)); // { added: 0, updated: 1, removed: 0, rebuilt: false, … }
 */
export function updateSearchIndex(root: string, vault: LoadedVault, options: { compactAfter?: number; force?: boolean } = {}): IndexReport {
  const started = performance.now();
  const hashes = hashesOf(vault);
  const report = (counts: SyncCounts, extra: { rebuilt?: boolean; written: boolean; compacted?: boolean }): IndexReport => ({
    documents: hashes.size,
    ...counts,
    rebuilt: extra.rebuilt ?? false,
    written: extra.written,
    ...(extra.compacted ? { compacted: true } : {}),
    ms: Math.round(performance.now() - started),
  });
  const manifest = options.force ? undefined : readManifest(root);
  if (!manifest) {
    mkdirSync(searchDir(root), { recursive: true });
    const loaded: LoadedIndex = { index: createIndex(), known: new Map() };
    const counts = syncIndex(loaded.index, loaded.known, searchDocuments(vault), textReader(vault));
    writeSnapshot(root, loaded);
    writeManifest(root, Object.fromEntries(loaded.known), 0);
    return report(counts, { rebuilt: true, written: true });
  }
  const changed: string[] = [];
  // Documents of the vault the manifest knows: fewer than it holds means some are gone.
  let present = 0;
  for (const [id, sha] of hashes) {
    const indexed = manifest.docs[id];
    if (indexed !== undefined) present++;
    if (indexed !== sha) changed.push(id);
  }
  const indexed = Object.keys(manifest.docs);
  const removed = present < indexed.length ? indexed.filter((id) => !hashes.has(id)) : [];
  if (changed.length === 0 && removed.length === 0) return report({ added: 0, updated: 0, removed: 0 }, { written: false });
  const compactAfter = options.compactAfter ?? defaultCompactAfter(hashes.size);
  if (manifest.logged + changed.length + removed.length > compactAfter) {
    // Folding the log in needs the index itself: loaded (or taken from memory), brought up to date, written as a new snapshot.
    const loaded = readIndex(root);
    if (!loaded) return updateSearchIndex(root, vault, { ...options, force: true });
    const counts = syncIndex(loaded.index, loaded.known, searchDocuments(vault), textReader(vault));
    writeSnapshot(root, loaded);
    writeManifest(root, Object.fromEntries(loaded.known), 0);
    return report(counts, { written: true, compacted: true });
  }
  const changes: IndexChange[] = [];
  const counts: SyncCounts = { added: 0, updated: 0, removed: removed.length };
  const wanted = new Set(changed);
  const text = textReader(vault);
  for (const doc of searchDocuments(vault, wanted)) {
    changes.push({ op: 'put', doc: { ...doc, text: text(doc) } });
    if (manifest.docs[doc.id] === undefined) counts.added++;
    else counts.updated++;
  }
  for (const id of removed) changes.push({ op: 'del', id });
  appendFileSync(files(root).log, changes.map((change) => `${JSON.stringify(change)}\n`).join(''));
  const docs = { ...manifest.docs };
  for (const id of changed) docs[id] = hashes.get(id)!;
  for (const id of removed) delete docs[id];
  writeManifest(root, docs, manifest.logged + changes.length);
  return report(counts, { written: true });
}

/**
 * Whether the project has a search index for the build to keep current. A
 * fresh clone (a nightly job's checkout) has none: indexing every document
 * there would cost the whole history, so the first `memvault search` (or a
 * warm reader) builds it instead.
 */
export function hasSearchIndex(root: string): boolean {
  return existsSync(files(root).manifest);
}

export type { SearchDoc };
