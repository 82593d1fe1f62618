import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { openStateStore } from './database.js';
import { kvTable, zodDecode } from './kv.js';
import { sha256 } from '../util/hash.js';
import type { ParseCache } from './cache.js';

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
 */

const STORE = 'derived';
/** The row naming the cache state, program and config the other rows belong to. */
const STATE_KEY = '';

export class DerivedMemo {
  private readonly added = new Map<string, string>();

  private constructor(
    private readonly stateDir: string,
    private readonly cache: ParseCache,
    /** The cache state the values belong to; undefined when nothing can be memoized. */
    private readonly cacheState: string | undefined,
    /** The program and the config the values belong to. */
    private readonly inputs: string,
    private readonly values: Map<string, string>,
  ) {}

  /** The memo of `cache` (in the store of `stateDir`) for the state it was opened in and `config`; empty for another. */
  static open(stateDir: string, cache: ParseCache, config: unknown): DerivedMemo {
    const cacheState = cache.state;
    const inputs = `${PROGRAM} ${sha256(JSON.stringify(config))}`;
    const values = new Map<string, string>();
    if (cacheState !== undefined) {
      try {
        const table = derivedTable(stateDir);
        if (table.get(STATE_KEY) === `${cacheState} ${inputs}`)
          for (const [key, value] of table.entries()) if (key !== STATE_KEY) values.set(key, value);
      } catch {
        // No store to read: everything is worked out.
      }
    }
    return new DerivedMemo(stateDir, cache, cacheState, inputs, values);
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
    if (this.added.size === 0 || !this.unchanged()) return;
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
