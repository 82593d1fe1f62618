import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../util/atomic.js';
import { sha256 } from '../util/hash.js';
import type { ParseCache } from '../vault/cache.js';

/**
 * Whole-vault input hashes a no-change build would only work out again: the
 * package's and the index's (canonical JSON of every memory's path and SHA-256
 * and every summary's, ~2 MB each at 20,000 memories, then SHA-256). They are
 * functions of the parse cache's entries and of a few other inputs (the
 * config, the bands, the diagnostics …), so they are kept in
 * `.memvault/cache/derived.json` under
 * - the cache's state (`ParseCache.state`: a new one with every change to an
 *   entry, and none once this process changed one), checked at every lookup:
 *   a build that writes a summary or moves a file works everything out again;
 * - the running program's file (path, size and mtime): an upgrade or a rebuild
 *   of memvault, which may hash differently, starts afresh;
 * - the config (which memories a stream holds, budgets, bands);
 * - per value, the SHA-256 of the other inputs the caller names (`key`).
 * A value is recorded only by a build that left the cache as it found it, and
 * the file holds one state's values at a time.
 */

/** The file, beside the parse cache's own. */
export const DERIVED_FILE = 'derived.json';

interface DerivedFile {
  /** Cache state, program and config the values belong to. */
  state: string;
  values: Record<string, string>;
}

export class DerivedMemo {
  private added = false;

  private constructor(
    private readonly file: string,
    private readonly cache: ParseCache,
    /** The cache state the values belong to; undefined when nothing can be memoized. */
    private readonly cacheState: string | undefined,
    /** The program and the config the values belong to. */
    private readonly inputs: string,
    private readonly values: Map<string, string>,
  ) {}

  /** The memo of `cache` (in `cacheDir`) for the state it was opened in and `config`; empty for another, or a missing or bad file. */
  static open(cacheDir: string, cache: ParseCache, config: unknown): DerivedMemo {
    const file = path.join(cacheDir, DERIVED_FILE);
    const cacheState = cache.state;
    const inputs = `${PROGRAM} ${sha256(JSON.stringify(config))}`;
    const values = new Map<string, string>();
    if (cacheState !== undefined) {
      try {
        const stored = JSON.parse(readFileSync(file, 'utf8')) as DerivedFile;
        if (stored.state === `${cacheState} ${inputs}`) for (const [key, value] of Object.entries(stored.values)) values.set(key, value);
      } catch {
        // No memo yet, or unreadable: everything is worked out.
      }
    }
    return new DerivedMemo(file, cache, cacheState, inputs, values);
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
      this.added = true;
    }
    return value;
  }

  /** Writes the values when some were added and the cache is still in the state they were worked out for. */
  save(): void {
    if (!this.added || !this.unchanged()) return;
    const stored: DerivedFile = { state: `${this.cacheState} ${this.inputs}`, values: Object.fromEntries(this.values) };
    try {
      writeFileAtomic(this.file, `${JSON.stringify(stored)}\n`);
    } catch {
      // Only time is lost: the next build works the values out again.
    }
    this.added = false;
  }

  /** True while the cache is in the state it was opened in. */
  private unchanged(): boolean {
    return this.cacheState !== undefined && this.cache.state === this.cacheState;
  }
}

/** The running program's identity: this module's file, its size and mtime (a bundle's chunk, or the compiled or source file). */
const PROGRAM = programIdentity();

function programIdentity(): string {
  try {
    const file = fileURLToPath(import.meta.url);
    const stat = statSync(file);
    return `${file}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return `${import.meta.url}:${Date.now()}:${Math.random()}`;
  }
}
