import path from 'node:path';
import { STATE_DIR } from '../config/file.js';
import type { Config } from '../config/schema.js';
import { openStateStore } from '../store/database.js';
import { kvTable } from '../store/kv.js';
import { sha256 } from '../util/hash.js';
import { queryLessMayShow, queryLessRecentFrom } from '../read/context/stream-view.js';
import type { Memory, StreamState } from '../vault/model.js';
import type { ScannedFile } from '../vault/scan.js';
import { PARTS_STORE } from './start-cache.js';

/**
 * The files a query-less context draws on, so the session-start hook can
 * assemble its answer from them alone instead of loading the whole vault
 * (at 20,000 memories the parse cache, its garbage and the stream's views
 * were most of a new answer's time).
 *
 * Without a query, a context (read/context/candidates.ts) draws on the
 * stream's pinned memories, its last three decisions that are no copies,
 * conventions, facts, errors of the last 24 hours and their fixes (memories
 * of the days after), copies and what they repeat, the summaries and
 * `index.json`. After an answer assembled from the whole vault, the hook keeps
 * (`recordParts`) the stamp of every file, each memory's id, and which files
 * those are (`needed`: every summary; of the stream's memories the pinned,
 * conventions, fact holders, copies and what they repeat, memories sharing an
 * id, the last 10 decisions, and every memory of the last 7 days). The next
 * answer (a new day, usage, an edit) loads only the needed files that are
 * unchanged and every file changed or added since (`partsSubset`), and only
 * when that is provably the same context:
 * - the same config and requested stream, and no earlier day than the kept one
 *   (a later day needs fewer recent memories, never more);
 * - no needed file removed, and at least 3 of the kept last decisions unchanged
 *   (so the last three decisions are among the loaded ones: a new or edited
 *   decision is loaded as changed);
 * - after the load (`partsHold`), every copy's original loaded when it exists,
 *   and no changed memory sharing its id with one not loaded.
 * Otherwise the whole vault is loaded, as before. The answer is the same
 * either way (test/hooks/start-parts.test.ts compares both on random vaults
 * and edits).
 */

const FORMAT = 2;

/** The last decisions kept; a partial load needs three of them unchanged. */
const DECISIONS_KEPT = 10;
const DECISIONS_SHOWN = 3;

export interface StartParts {
  format: number;
  /** SHA-256 of the config and the requested stream. */
  key: string;
  /** The context's stream. */
  stream: string;
  /** The day (config zone) the needed files were chosen for. */
  today: string;
  /** Every file of the walk (specials aside), in columns (cheaper to read back than 21,000 small arrays): path, size, mtime. */
  paths: string[];
  sizes: number[];
  mtimes: number[];
  /** The id of each of the stream's memories, by index in `paths`: `[index, id, index, id, …]`. */
  ids: (number | string)[];
  needed: string[];
  decisions: string[];
}

export const partsKey = (config: Config, stream: string | undefined): string => sha256(JSON.stringify({ config, stream: stream ?? null }));

function partsTable(root: string) {
  return kvTable<StartParts>(openStateStore(path.join(root, STATE_DIR)), PARTS_STORE, (raw) => {
    const parts = raw as StartParts | null;
    const valid =
      typeof parts === 'object' &&
      parts !== null &&
      parts.format === FORMAT &&
      typeof parts.key === 'string' &&
      typeof parts.stream === 'string' &&
      typeof parts.today === 'string' &&
      Array.isArray(parts.paths) &&
      Array.isArray(parts.sizes) &&
      Array.isArray(parts.mtimes) &&
      Array.isArray(parts.ids) &&
      parts.sizes.length === parts.paths.length &&
      parts.mtimes.length === parts.paths.length &&
      Array.isArray(parts.needed) &&
      Array.isArray(parts.decisions);
    return valid ? parts : undefined;
  });
}

/** The files needed by a query-less context of `stream` on `today` (see above), from a load of the whole vault. */
export function neededFiles(
  streams: ReadonlyMap<string, StreamState>,
  stream: StreamState,
  today: string,
): { needed: string[]; decisions: string[] } {
  const needed = new Set<string>();
  for (const s of streams.values()) for (const summary of s.summaries.keys()) needed.add(summary);
  const recentFrom = queryLessRecentFrom(today);
  const ids = new Map<string, number>();
  for (const m of stream.memories) ids.set(m.id, (ids.get(m.id) ?? 0) + 1);
  const originals = new Set(stream.memories.flatMap((m) => (m.duplicateOf === undefined ? [] : [m.duplicateOf])));
  // Besides what the context may show, what decides how it shows it: copies, their originals, ids shared by files.
  const needs = (m: Memory): boolean =>
    queryLessMayShow(m, recentFrom) || m.duplicateOf !== undefined || originals.has(m.id) || ids.get(m.id)! > 1;
  for (const m of stream.memories) if (needs(m)) needed.add(m.path);
  const decisions = stream.memories
    .filter((m) => m.kind.toLowerCase() === 'decision' && m.duplicateOf === undefined)
    .slice(-DECISIONS_KEPT)
    .map((m) => m.path);
  for (const p of decisions) needed.add(p);
  return { needed: [...needed], decisions };
}

/** Keeps what the next answer needs to load only part of the vault (after an answer assembled from all of it). */
export function recordParts(
  root: string,
  entry: { key: string; stream: StreamState; streams: ReadonlyMap<string, StreamState>; today: string; scanned: readonly ScannedFile[] },
): void {
  const idOf = new Map(entry.stream.memories.map((m) => [m.path, m.id]));
  const files = entry.scanned.filter((file) => !file.special);
  const ids: (number | string)[] = [];
  files.forEach((file, i) => {
    const id = idOf.get(file.vaultPath);
    if (id !== undefined) ids.push(i, id);
  });
  const { needed, decisions } = neededFiles(entry.streams, entry.stream, entry.today);
  try {
    partsTable(root).set('last', {
      format: FORMAT,
      key: entry.key,
      stream: entry.stream.name,
      today: entry.today,
      paths: files.map((file) => file.vaultPath),
      sizes: files.map((file) => file.size),
      mtimes: files.map((file) => file.mtimeMs),
      ids,
      needed,
      decisions,
    });
  } catch {
    // Parts that cannot be kept cost the next answer a load of the whole vault, nothing else.
  }
}

/** What a partial load takes: the files to load (in the walk's order), and those changed or added since the parts were kept. */
export interface PartialLoad {
  parts: StartParts;
  files: ScannedFile[];
  changed: Set<string>;
}

/** The files to load instead of the whole vault, or undefined when only the whole vault gives the same context. */
export function partsSubset(root: string, key: string, today: string, scanned: readonly ScannedFile[]): PartialLoad | undefined {
  let parts: StartParts | undefined;
  try {
    parts = partsTable(root).get('last');
  } catch {
    return undefined;
  }
  if (!parts || parts.key !== key || today < parts.today) return undefined;
  const needed = new Set(parts.needed);
  const decisions = new Set(parts.decisions);
  const changed = new Set<string>();
  const files: ScannedFile[] = [];
  let neededPresent = 0;
  let unchangedDecisions = 0;
  // The walk finds the files in the order the parts kept them (both sorted): while none was added or removed, the next
  // file is the next kept path, found without a lookup; past a difference, a map of the kept paths finds them (a walk
  // names a path once, so a path equal to the kept one at `next` is that one). 21,000 map entries cost ~10 ms of a hook.
  let byPath: Map<string, number> | undefined;
  let next = 0;
  for (const file of scanned) {
    if (file.special) continue;
    let i: number | undefined = parts.paths[next] === file.vaultPath ? next : undefined;
    if (i === undefined) i = (byPath ??= new Map(parts.paths.map((p, k) => [p, k]))).get(file.vaultPath);
    if (i !== undefined) next = i + 1;
    const same = i !== undefined && parts.sizes[i] === file.size && parts.mtimes[i] === file.mtimeMs;
    if (!same) changed.add(file.vaultPath);
    const isNeeded = needed.has(file.vaultPath);
    if (isNeeded) neededPresent++;
    if (same && decisions.has(file.vaultPath)) unchangedDecisions++;
    if (!same || isNeeded) files.push(file);
  }
  if (neededPresent < needed.size) return undefined;
  // The last three decisions are among those loaded when three of the kept last ones are unchanged (every older one
  // comes before them; a new or edited one is loaded as changed), or when there were fewer and all are unchanged.
  if (unchangedDecisions < Math.min(DECISIONS_SHOWN, parts.decisions.length)) return undefined;
  return { parts, files, changed };
}

/** Whether the partly loaded stream gives the context the whole one would: copies find their originals, no id is shared with a file not loaded. */
export function partsHold(load: PartialLoad, stream: StreamState): boolean {
  const loadedIds = new Set(stream.memories.map((m) => m.id));
  // The ids asked about below: the originals of copies not loaded, the ids of changed files.
  const asked = new Set<string>();
  for (const m of stream.memories) {
    if (m.duplicateOf !== undefined && !loadedIds.has(m.duplicateOf)) asked.add(m.duplicateOf);
    if (load.changed.has(m.path)) asked.add(m.id);
  }
  if (asked.size === 0) return true;
  const loadedPaths = new Set(load.files.map((file) => file.vaultPath));
  // Those of the asked ids that files not loaded have (unchanged since the parts were kept, so their ids are the kept
  // ones); the kept ids are not all put in a set (21,000 of them, ~5 ms of a hook).
  const elsewhere = new Set<string>();
  const { paths, ids } = load.parts;
  for (let k = 0; k + 1 < ids.length; k += 2) {
    const id = String(ids[k + 1]);
    if (!asked.has(id)) continue;
    const p = paths[ids[k] as number];
    if (p !== undefined && !loadedPaths.has(p)) elsewhere.add(id);
  }
  for (const m of stream.memories) {
    if (m.duplicateOf !== undefined && !loadedIds.has(m.duplicateOf) && elsewhere.has(m.duplicateOf)) return false;
    if (load.changed.has(m.path) && elsewhere.has(m.id)) return false;
  }
  return true;
}
