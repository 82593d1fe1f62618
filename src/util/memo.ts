/**
 * A memo of at most `max` entries that starts over when full: the one shape of
 * the bounded caches a long-lived process (the MCP server, watch mode) keeps
 * for pure functions.
 *
 * Why not lru-cache: these memos sit on hot paths (a lookup per sentence, per
 * word, per input hash) and are created at module load; lru-cache allocates
 * its `max`-sized arrays up front (MBs for the 100,000–200,000-entry memos, on
 * every CLI start and hook) and moves an entry on every hit, while a cleared
 * Map costs one lookup. Starting over loses the hits of one refill, which a
 * memo of a pure function can afford. `undefined` is a value like any other.
 *
 * @example
 *   const stems = new CappedMemo<string, string>(100_000);
 *   stems.get('running', () => stem('running')) // computed once, then remembered
 */
export class CappedMemo<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly max: number) {}

  /** The remembered value for `key`, else `compute()` remembered. */
  get(key: K, compute: () => V): V {
    // One lookup when remembered (most calls): `has` then `get` hashed a long key (a sentence) twice.
    const known = this.entries.get(key);
    if (known !== undefined || this.entries.has(key)) return known as V;
    const value = compute();
    this.set(key, value);
    return value;
  }

  /** The remembered value, or `undefined` (for memos whose entries need a check before use). */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
