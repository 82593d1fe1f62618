import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { STATE_DIR } from '../config/file.js';
import { type KvTable, kvTable } from '../store/kv.js';
import { writeFileAtomic } from '../util/atomic.js';
import type { StreamState } from '../vault/model.js';
import { classifyPath } from '../vault/paths.js';
import { addReplica, formatUsageFile, parseUsageFile, type UsageFile } from './codec.js';
import { readUsageLog, type UsageEvent, usageStore } from './log.js';

/**
 * The fold: the build turns the clone's usage log (the `usage_events` rows,
 * log.ts) into each stream's committed `usage.json`. The clone's own totals
 * live in the state store (`.memvault/state.sqlite`, the `usage-state` rows
 * of `kv`) with the last event they cover (`through`) and the clone's id
 * (`replica`, random, made on the first fold). The totals are saved and the
 * events they cover deleted in one transaction, so a fold that is killed and
 * run again counts nothing twice and loses nothing. The
 * `.memvault/usage-state.json` of earlier versions is read when the store has
 * no totals yet, and removed once they are saved there. The clone's line in
 * `usage.json` is then set from those totals.
 *
 * Both stay bounded: the log holds what was served since the last build; the
 * totals keep at most `USAGE_STATE_MAX_KEYS` ids, the least recently used
 * dropped first.
 */

export const USAGE_FILE = 'usage.json';
/** Vault-relative path of a stream's usage file. */
export const usagePath = (stream: string): string => `${stream}/${USAGE_FILE}`;

/**
 * The most ids (memories and summaries, all streams) the clone's totals keep: ~60 bytes each, so the state stays
 * under ~6 MB. An id dropped keeps its line in `usage.json` (the committed total); served again, its local count starts
 * over, and `usage.json` shows the higher of the two.
 */
export const USAGE_STATE_MAX_KEYS = 100_000;

export interface LocalState {
  replica: string;
  /** The sequence number of the last usage event counted in (log.ts); 0 before the first. */
  through: number;
  /** stream → key → [count, last used]. */
  counts: Record<string, Record<string, [number, string]>>;
}

const STORE = 'usage-state';
/** The row of the totals, and the row that changes with every save (read.ts compares it: the totals can be MBs). */
const STATE_KEY = 'state';
const STAMP_KEY = 'stamp';
/** Where earlier versions kept the totals. */
export const legacyStateFile = (root: string): string => path.join(root, STATE_DIR, 'usage-state.json');

/**
 * The totals as read back (a row, or an earlier version's file): every field and every `[count, last used]` checked,
 * else none. A plain check, not zod: the session-start hook reaches this module (usageStamp), and importing zod costs
 * it ~70 ms (see docs/state-store.md).
 */
export function decodeLocalState(raw: unknown): LocalState | undefined {
  if (!isRecord(raw) || typeof raw.replica !== 'string' || !isRecord(raw.counts)) return undefined;
  // Totals of versions that kept a log file have an `offset` instead: its lines were carried over into the table.
  if (raw.through !== undefined && typeof raw.through !== 'number') return undefined;
  for (const keys of Object.values(raw.counts)) {
    if (!isRecord(keys)) return undefined;
    for (const use of Object.values(keys))
      if (!Array.isArray(use) || use.length !== 2 || typeof use[0] !== 'number' || typeof use[1] !== 'string') return undefined;
  }
  return { replica: raw.replica, through: raw.through ?? 0, counts: raw.counts as LocalState['counts'] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type UsageRow = LocalState | string;
function usageTable(root: string): KvTable<UsageRow> {
  return kvTable<UsageRow>(usageStore(root), STORE, (raw) => (typeof raw === 'string' ? raw : decodeLocalState(raw)));
}

/** What changes whenever the totals are saved ('none' before the first save). */
export function localStateStamp(root: string): string {
  const stamp = usageTable(root).get(STAMP_KEY);
  return typeof stamp === 'string' ? stamp : 'none';
}

/** This clone's totals (folded so far); a new clone id when there are none yet. */
export function readLocalState(root: string): LocalState {
  const stored = usageTable(root).get(STATE_KEY);
  if (stored !== undefined && typeof stored !== 'string') return stored;
  // A clone folded by an earlier version: its totals file, checked as a row is (a file that does not decode is none).
  try {
    const legacy = decodeLocalState(JSON.parse(readFileSync(legacyStateFile(root), 'utf8')));
    if (legacy) return legacy;
  } catch {
    // No totals file either.
  }
  // First fold of this clone, or damaged totals: start a new clone id (the old one's counts stay in usage.json).
  return { replica: randomBytes(4).toString('hex'), through: 0, counts: {} };
}

/** Saves the totals with a new stamp in one transaction (or the caller's); the totals file of earlier versions goes once they are saved. */
function saveLocalState(root: string, state: LocalState): void {
  const table = usageTable(root);
  usageStore(root).transaction(() => {
    table.set(STATE_KEY, state);
    table.set(STAMP_KEY, `${Date.now()}-${randomBytes(4).toString('hex')}`);
  });
  rmSync(legacyStateFile(root), { force: true });
}

/** Drops the least recently used ids beyond `max` (all streams together), in place; true when it dropped any. */
export function pruneCounts(counts: LocalState['counts'], max = USAGE_STATE_MAX_KEYS): boolean {
  const all: [string, string, string][] = [];
  for (const [stream, keys] of Object.entries(counts)) for (const [key, [, last]] of Object.entries(keys)) all.push([last, stream, key]);
  if (all.length <= max) return false;
  all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, stream, key] of all.slice(0, all.length - max)) delete counts[stream]![key];
  return true;
}

/**
 * The key an event is counted under: the memory's id (frontmatter `id`, else
 * its path inside `memories/` or `archive/<quarter>/` without `.md`), or for
 * a summary its path inside the stream (`daily/2026-02-13.md`; the `.md`
 * keeps it apart from memory ids).
 */
export function usageKey(vaultPath: string, ids?: ReadonlyMap<string, string>): string | undefined {
  const known = ids?.get(vaultPath);
  if (known) return known;
  const role = classifyPath(vaultPath);
  if (role.role === 'memory') return role.relativeId;
  const slash = vaultPath.indexOf('/');
  return slash > 0 && vaultPath.endsWith('.md') ? vaultPath.slice(slash + 1) : undefined;
}

/** Adds events to per-stream totals (pure apart from the mutation of `counts`, which the caller owns). */
export function addEvents(counts: LocalState['counts'], events: readonly UsageEvent[], ids?: ReadonlyMap<string, string>): void {
  for (const event of events) {
    const key = usageKey(event.path, ids);
    if (!key) continue;
    const stream = (counts[event.stream] ??= {});
    const old = stream[key];
    stream[key] = [(old?.[0] ?? 0) + 1, old && old[1] > event.ts ? old[1] : event.ts];
  }
}

/**
 * Folds the log into this clone's totals (the state store) and each stream's
 * `usage.json` (this clone's line per id). Returns the vault-relative paths
 * of the usage files it wrote (a file is rewritten only when its text
 * changes, which also tidies a file a union merge left with duplicate lines).
 * Run under the build lock: one fold at a time.
 *
 * @example
 *   const written = foldUsage(root, vaultDir, [...loaded.state.streams.values()]); // ['main/usage.json']
 */
export function foldUsage(root: string, vaultDir: string, streams: readonly StreamState[], maxKeys = USAGE_STATE_MAX_KEYS): string[] {
  const ids = new Map<string, string>();
  for (const stream of streams) for (const m of stream.memories) ids.set(m.path, m.id);
  const files = new Map<string, { text: string; usage: UsageFile }>();
  for (const stream of streams) {
    let text = '';
    try {
      text = readFileSync(path.join(vaultDir, usagePath(stream.name)), 'utf8');
    } catch {
      // No usage file yet.
    }
    files.set(stream.name, { text, usage: parseUsageFile(text) });
  }
  const store = usageStore(root);
  const state = store.transaction(() => {
    const state = readLocalState(root);
    const { events, through } = readUsageLog(root, state.through);
    if (events.length === 0) return state;
    // An id the totals dropped (pruneCounts) goes on from this clone's line in usage.json, not from zero.
    for (const event of events) {
      const key = usageKey(event.path, ids);
      const line = key === undefined ? undefined : files.get(event.stream)?.usage.get(key)?.get(state.replica);
      if (key !== undefined && line && !state.counts[event.stream]?.[key])
        (state.counts[event.stream] ??= {})[key] = [line.count, line.last];
    }
    addEvents(state.counts, events, ids);
    state.through = through;
    saveLocalState(root, state);
    store.db.prepare('DELETE FROM usage_events WHERE seq <= ?').run(through);
    return state;
  });
  const written: string[] = [];
  for (const stream of streams) {
    const { text, usage } = files.get(stream.name)!;
    const mine = state.counts[stream.name] ?? {};
    if (!text && Object.keys(mine).length === 0) continue;
    for (const [key, [count, last]] of Object.entries(mine)) addReplica(usage, key, state.replica, { count, last });
    const next = formatUsageFile(usage);
    if (next !== text) {
      writeFileAtomic(path.join(vaultDir, usagePath(stream.name)), next);
      written.push(usagePath(stream.name));
    }
  }
  // Dropped once usage.json holds their counts (a fold killed before this keeps them one fold longer).
  if (pruneCounts(state.counts, maxKeys)) saveLocalState(root, state);
  return written;
}
