import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * The state store (`.memvault/state.sqlite`) as another process sees it: rows of its `kv` table read and written
 * through a connection of their own, so a test checks what is on disk, not what this process holds in memory.
 */

const stateFile = (root: string): string => path.join(root, '.memvault', 'state.sqlite');

function withDb<T>(root: string, work: (db: Database.Database) => T): T {
  const db = new Database(stateFile(root));
  try {
    db.pragma('busy_timeout = 5000');
    return work(db);
  } finally {
    db.close();
  }
}

/** The JSON value of a `kv` row, undefined when there is none (or no store yet). */
export function stateRow(root: string, store: string, key: string): unknown {
  if (!existsSync(stateFile(root))) return undefined;
  const text = withDb(root, (db) => db.prepare('SELECT value FROM kv WHERE store = ? AND key = ?').pluck().get(store, key)) as
    | string
    | undefined;
  return text === undefined ? undefined : JSON.parse(text);
}

/** How many `kv` rows `store` has (0 when there is no store yet). */
export function stateRowCount(root: string, store: string): number {
  if (!existsSync(stateFile(root))) return 0;
  return withDb(root, (db) => db.prepare('SELECT count(*) FROM kv WHERE store = ?').pluck().get(store) as number);
}

/** Writes a `kv` row's raw text (planting a value, or a damaged one). */
export function setStateRow(root: string, store: string, key: string, text: string): void {
  withDb(root, (db) => db.prepare('INSERT OR REPLACE INTO kv (store, key, value) VALUES (?, ?, ?)').run(store, key, text));
}

/** Every `kv` row of `store`, key → JSON value. */
export function stateRows(root: string, store: string): Record<string, unknown> {
  if (!existsSync(stateFile(root))) return {};
  const rows = withDb(root, (db) => db.prepare('SELECT key, value FROM kv WHERE store = ? ORDER BY key').all(store)) as {
    key: string;
    value: string;
  }[];
  return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value)]));
}

/** Makes the state store at least `bytes` large with a padding row (creating it if needed): a "large vault" for the build pool. */
export function padStateStore(root: string, bytes: number): void {
  mkdirSync(path.join(root, '.memvault'), { recursive: true });
  withDb(root, (db) => {
    db.exec('CREATE TABLE IF NOT EXISTS padding (bytes BLOB)');
    if (bytes > 0) db.prepare('INSERT INTO padding (bytes) VALUES (?)').run(Buffer.alloc(bytes, 0x20));
  });
}

/** Removes the state store (and its WAL): the next command starts with no cache. */
export function removeStateStore(root: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${stateFile(root)}${suffix}`, { force: true });
}
