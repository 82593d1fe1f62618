import type { Statement } from 'better-sqlite3';
import type { StateStore } from './database.js';

/**
 * The small stores of the state store: one JSON value per key in the `kv`
 * table, under the store's name. Every value read back goes through the
 * store's `decode` (a zod schema's `safeParse`, or a plain check where loading
 * zod would cost more than the store saves: config/cached.ts,
 * hooks/start-cache.ts): a row that does not decode is as good as missing.
 */
export interface KvTable<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
  delete(key: string): void;
  /** Every key and value (rows that do not decode left out), by key. */
  entries(): [string, T][];
  /** Every key (values not read). */
  keys(): string[];
  /** Removes every key of the store. */
  clear(): void;
}

/** A decoder: the value, or undefined when `raw` is not one. */
export type Decode<T> = (raw: unknown) => T | undefined;

/** A zod schema as a decoder. */
export function zodDecode<T>(schema: { safeParse(raw: unknown): { success: true; data: T } | { success: false } }): Decode<T> {
  return (raw) => {
    const parsed = schema.safeParse(raw);
    return parsed.success ? parsed.data : undefined;
  };
}

/**
 * The store `name` of `store`.
 *
 * @example
 *   const swept = kvTable(openStateStore(stateDir), 'swept-folders', zodDecode(folderSchema));
 *   swept.set('/repo/vault', { m: 1, i: 2, at: 3, sub: [] });
 */
export function kvTable<T>(store: StateStore, name: string, decode: Decode<T>): KvTable<T> {
  const { db } = store;
  // Prepared on first use: most callers read or write one row.
  const statements = new Map<string, Statement>();
  const statement = (sql: string): Statement => {
    let prepared = statements.get(sql);
    if (!prepared) statements.set(sql, (prepared = db.prepare(sql)));
    return prepared;
  };
  const select = () => statement('SELECT value FROM kv WHERE store = ? AND key = ?');
  const upsert = () =>
    statement('INSERT INTO kv (store, key, value) VALUES (?, ?, ?) ON CONFLICT (store, key) DO UPDATE SET value = excluded.value');
  const remove = () => statement('DELETE FROM kv WHERE store = ? AND key = ?');
  const all = () => statement('SELECT key, value FROM kv WHERE store = ? ORDER BY key');
  const allKeys = () => statement('SELECT key FROM kv WHERE store = ? ORDER BY key');
  const clear = () => statement('DELETE FROM kv WHERE store = ?');
  const read = (text: string): T | undefined => {
    try {
      return decode(JSON.parse(text));
    } catch {
      return undefined;
    }
  };
  return {
    get(key) {
      const row = select().get(name, key) as { value: string } | undefined;
      return row ? read(row.value) : undefined;
    },
    set(key, value) {
      upsert().run(name, key, JSON.stringify(value));
    },
    delete(key) {
      remove().run(name, key);
    },
    entries() {
      const out: [string, T][] = [];
      for (const row of all().iterate(name) as IterableIterator<{ key: string; value: string }>) {
        const value = read(row.value);
        if (value !== undefined) out.push([row.key, value]);
      }
      return out;
    },
    keys() {
      return allKeys().pluck().all(name) as string[];
    },
    clear() {
      clear().run(name);
    },
  };
}
