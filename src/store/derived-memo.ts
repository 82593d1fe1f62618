import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { openStateStore } from './database.js';
import { kvTable, zodDecode } from './kv.js';
import { sha256 } from '../util/hash.js';
import type { ParseCache } from './cache.js';
import type { CacheEntry } from './cache-codec.js';

/**
 * Whole-vault input hashes a no-change build would only work out again: the
 * package's and the index's (canonical JSON of every memory's path and SHA-256
 * and every summary's, ~2 MB each at 20,000 memories, then SHA-256). They are
 * functions of the parse cache's entries and of a few other inputs (the
 * config, the bands, the diagnostics …), so they are kept in the state store
 * (`derived` rows of `kv`, one per value, and one `state` row) under
 * - the cache's state (`ParseCache.state`: a new one with every save that
 *   changes an entry, and none once this process changed one), checked at
 *   every lookup: a build that writes a summary or moves a file works
 *   everything out again;
 * - the running program's file (path, size and mtime): an upgrade or a rebuild
 *   of memvault, which may hash differently, starts afresh;
 * - the config (which memories a stream holds, budgets, bands);
 * - per value, the SHA-256 of the other inputs the caller names (`key`).
 * A value is recorded only by a build that left the cache as it found it, and
 * the store holds one state's values at a time.
 *
 * Days' input hashes (`dayValue`) also outlive an edit: a daily's inputs are
 * the memories of its day (their entries: id, day, minute, hash, secrets) and
 * the config, so a day none of whose memories changed keeps its hash. They are
 * kept under the store's cache generation (`ParseCache.changesSinceSync`) and
 * used after an edit for every day but those of a path changed since (its day
 * then and now) and those holding a `duplicate_of` mark (whether a copy is left
 * out depends on a memory of another day). A build that changed entries writes
 * them for the generation its save made, less the days of what it changed after
 * the plan (`beforeCacheSave`).
 */

const STORE = 'derived';
/** The row naming the cache state, program and config the other rows belong to. */
const STATE_KEY = '';
/** Days' values are kept across at most this many changed paths (more: worked out; the check runs per day). */
const MAX_CARRIED_CHANGES = 256;
const DAY = 'day:';

export class DerivedMemo {
  private readonly added = new Map<string, string>();

  /** Days whose kept values are not used: touched by a change between the values' generation and the open, or holding a copy. */
  private readonly touched: Set<string>;
  /** The days changed after the open, worked out before the cache's save (`beforeCacheSave`); undefined: not known. */
  private touchedAfterOpen: Set<string> | undefined;

  private constructor(
    private readonly stateDir: string,
    private readonly cache: ParseCache,
    /** The cache state the values belong to; undefined when nothing can be memoized. */
    private readonly cacheState: string | undefined,
    /** The program and the config the values belong to. */
    private readonly inputs: string,
    private readonly values: Map<string, string>,
    /** The cache's changes at the open: its sync generation, and the entry then of each path changed since; none: days are worked out. */
    private readonly opened: { generation: number; size: number; entries: Map<string, CacheEntry | undefined> } | undefined,
  ) {
    // At the open: the changes after it are the save's to subtract (`beforeCacheSave`).
    this.touched = opened ? touchedDays(cache) : new Set();
  }

  /** The memo of `cache` (in the store of `stateDir`) for the state it was opened in and `config`; empty for another. */
  static open(stateDir: string, cache: ParseCache, config: unknown): DerivedMemo {
    const cacheState = cache.state;
    const inputs = `${PROGRAM} ${sha256(JSON.stringify(config))}`;
    const values = new Map<string, string>();
    const changes = cache.changesSinceSync();
    const opened =
      changes && changes.previous.size <= MAX_CARRIED_CHANGES
        ? {
            generation: changes.generation,
            size: changes.previous.size,
            entries: new Map([...changes.previous.keys()].map((p) => [p, cache.get(p)])),
          }
        : undefined;
    // Unchanged cache: every value of its state. Changed since the store's generation: the days' values of that generation.
    const basis = cacheState ?? (opened ? String(opened.generation) : undefined);
    if (basis !== undefined) {
      try {
        const table = derivedTable(stateDir);
        if (table.get(STATE_KEY) === `${basis} ${inputs}`)
          for (const [key, value] of table.entries())
            if (key !== STATE_KEY && (cacheState !== undefined || key.startsWith(DAY))) values.set(key, value);
      } catch {
        // No store to read: everything is worked out.
      }
    }
    return new DerivedMemo(stateDir, cache, cacheState, inputs, values, opened);
  }

  /**
   * The input hash of day `day`'s daily, as `value`: `key` names every input but the entries of the day's memories (the
   * stream, the summarizer, which of the day's memories: their number, first and last id).
   */
  dayValue(day: string, key: string, compute: () => string): string {
    if (this.opened === undefined || this.changedSinceOpen()) return compute();
    const id = `${DAY}${day} ${key}`;
    let value = this.touched.has(day) ? undefined : this.values.get(id);
    if (value === undefined) {
      value = compute();
      this.added.set(id, value);
    }
    return value;
  }

  /** Works out the days the cache changed after the open; call it right before the cache's save, for `save` to keep the rest. */
  beforeCacheSave(): void {
    const changes = this.cache.changesSinceSync();
    if (this.opened === undefined || changes === undefined || changes.generation !== this.opened.generation) return;
    const touched = new Set<string>();
    for (const [vaultPath, atSync] of changes.previous) {
      const atOpen = this.opened.entries.has(vaultPath) ? this.opened.entries.get(vaultPath) : atSync;
      const now = this.cache.get(vaultPath);
      if (now === atOpen) continue;
      addDay(touched, atOpen);
      addDay(touched, now);
    }
    this.touchedAfterOpen = touched;
  }

  /**
   * `compute()`, or the value kept for `kind` and `key` in this cache state.
   * `key` must name every input of `compute` that the cache's entries do not
   * determine: a string, kept as it is (short keys, one per period), or any
   * JSON-serialisable value, kept as its SHA-256.
   */
  value(kind: string, key: unknown, compute: () => string): string {
    if (!this.unchanged()) return compute();
    const id = `${kind}:${typeof key === 'string' ? key : sha256(JSON.stringify(key))}`;
    let value = this.values.get(id);
    if (value === undefined) {
      value = compute();
      this.values.set(id, value);
      this.added.set(id, value);
    }
    return value;
  }

  /** Writes the values added when the cache is still in the state they were worked out for (another state's go). */
  save(): void {
    if (!this.unchanged()) {
      this.saveDays();
      return;
    }
    if (this.added.size === 0) return;
    const state = `${this.cacheState} ${this.inputs}`;
    try {
      const store = openStateStore(this.stateDir);
      const table = derivedTable(this.stateDir);
      store.transaction(() => {
        if (table.get(STATE_KEY) !== state) {
          table.clear();
          table.set(STATE_KEY, state);
        }
        for (const [id, value] of this.added) table.set(id, value);
      });
    } catch {
      // Only time is lost: the next build works the values out again.
    }
    this.added.clear();
  }

  /** True while the cache is in the state it was opened in. */
  private unchanged(): boolean {
    return this.cacheState !== undefined && this.cache.state === this.cacheState;
  }

  /**
   * After a save of a changed cache: the days' values for the generation the store now holds (`syncedGeneration`),
   * those kept and those worked out, less the days changed after the open (their values were worked out from entries
   * of the open). Nothing when the store's generation is not this cache's or the changes after the open are not known.
   */
  private saveDays(): void {
    const generation = this.cache.syncedGeneration;
    const after = this.touchedAfterOpen;
    this.touchedAfterOpen = undefined;
    if (generation === undefined || after === undefined || this.opened === undefined) return;
    const kept = new Map<string, string>();
    const dayOf = (id: string) => id.slice(DAY.length, id.indexOf(' '));
    for (const [id, value] of this.values) if (id.startsWith(DAY) && !this.touched.has(dayOf(id))) kept.set(id, value);
    for (const [id, value] of this.added) if (id.startsWith(DAY)) kept.set(id, value);
    for (const id of kept.keys()) if (after.has(dayOf(id))) kept.delete(id);
    try {
      const store = openStateStore(this.stateDir);
      const table = derivedTable(this.stateDir);
      store.transaction(() => {
        table.clear();
        table.set(STATE_KEY, `${generation} ${this.inputs}`);
        for (const [id, value] of kept) table.set(id, value);
      });
    } catch {
      // Only time is lost: the next build works the values out again.
    }
    this.added.clear();
  }

  /** True once the cache changed an entry after the open (a new path, or another entry for a path changed before). */
  private changedSinceOpen(): boolean {
    const changes = this.cache.changesSinceSync();
    const opened = this.opened!;
    if (changes === undefined || changes.generation !== opened.generation || changes.previous.size !== opened.size) return true;
    for (const [vaultPath, entry] of opened.entries) if (this.cache.get(vaultPath) !== entry) return true;
    return false;
  }
}

/** The days of the paths `cache` changed since its sync generation (then and now), and the days holding a `duplicate_of` mark. */
function touchedDays(cache: ParseCache): Set<string> {
  const touched = new Set<string>();
  for (const [vaultPath, atSync] of cache.changesSinceSync()?.previous ?? []) {
    addDay(touched, atSync);
    addDay(touched, cache.get(vaultPath));
  }
  for (const entry of cache.values())
    if (entry.result.type === 'memory' && entry.result.memory.duplicateOf !== undefined) touched.add(entry.result.memory.day);
  return touched;
}

function addDay(days: Set<string>, entry: CacheEntry | undefined): void {
  if (entry?.result.type === 'memory') days.add(entry.result.memory.day);
}

function derivedTable(stateDir: string) {
  return kvTable(openStateStore(stateDir), STORE, zodDecode(z.string()));
}

/** The running program's identity: this module's file, its size and mtime (a bundle's chunk, or the compiled or source file). */
export const PROGRAM = programIdentity();

function programIdentity(): string {
  try {
    const file = fileURLToPath(import.meta.url);
    const stat = statSync(file);
    return `${file}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return `${import.meta.url}:${Date.now()}:${Math.random()}`;
  }
}
