import type Database from 'better-sqlite3';

/**
 * The state store's tables, by schema version. `MIGRATIONS[n]` takes a file
 * of version n to n + 1, inside the transaction `openStateStore` opens; add
 * one (never edit a released one) and `SCHEMA_VERSION` follows. A cache whose
 * content changes shape bumps its own version instead (the parse cache's
 * `CACHE_VERSION`, kept in its `meta` row): its rows are dropped and rebuilt,
 * no migration needed.
 */

export const MIGRATIONS: readonly ((db: Database.Database) => void)[] = [
  // 1: the first store. `kv` holds the small stores (one JSON value per key, checked on read: see kv.ts). A parse_files
  // row's `entry` is its whole cache entry as JSON (vault/cache-codec.ts), so a load reads all rows as one string.
  (db) => {
    db.exec(`
      CREATE TABLE kv (store TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (store, key)) WITHOUT ROWID;
      CREATE TABLE parse_files (path TEXT NOT NULL UNIQUE, sha256 TEXT NOT NULL, entry TEXT NOT NULL);
      CREATE TABLE parse_bodies (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, content TEXT NOT NULL);
      CREATE TABLE parse_lists (sha256 TEXT PRIMARY KEY, path TEXT NOT NULL, lists TEXT NOT NULL);
      CREATE TABLE vectors (model TEXT NOT NULL, sha256 BLOB NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, sha256));
    `);
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
