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
  // 2: the citations' results (src/citations/store.ts), once JSON files in .memvault/citations/ (dropped, not imported:
  // a cache the next build fills with one full check). Tables of their own, keyed by path, because the pre-tool hook
  // reads the rows of one file and its folders (cited_by) and the read commands the rows of their hits
  // (citing_memories); `sha` says whether a memory's row must be written again. pre_tool_seen: what the hook said in
  // which session, dropped after a day (`at`, Unix seconds).
  (db) => {
    db.exec(`
      CREATE TABLE citing_memories (path TEXT PRIMARY KEY, sha TEXT NOT NULL, record TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE cited_by (path TEXT PRIMARY KEY, entries TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE pre_tool_seen (session TEXT NOT NULL, path TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (session, path)) WITHOUT ROWID;
      CREATE INDEX pre_tool_seen_at ON pre_tool_seen (at);
    `);
  },
  // 3: the usage log (src/usage/log.ts), once `.memvault/usage.log` appended line by line and rotated by each build's
  // fold: one row per served item, counted and deleted by the fold in the transaction that saves the totals. AUTOINCREMENT
  // so a sequence number is never handed out twice: a reader that counted up to `seq` reads on from there.
  // Its unfolded lines are carried over (store/legacy-usage-log.ts).
  (db) => {
    db.exec(`
      CREATE TABLE usage_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, stream TEXT NOT NULL, path TEXT NOT NULL, via TEXT NOT NULL);
    `);
  },
  // 4: citation_notes (src/citations/store.ts): one row per stale memory, its note; once a list in the verification row
  // (3 MB of JSON read through zod and written whole by every build with thousands of memories stale), now rows a
  // build writes where they changed. The verification row of store version 2 is not read (version 3): one full check.
  (db) => {
    db.exec(`
      CREATE TABLE citation_notes (memory TEXT PRIMARY KEY, note TEXT NOT NULL) WITHOUT ROWID;
    `);
  },
  // 5: parse_citations (src/store/cache.ts): a memory's citations by its content hash, out of its parse_files row (a
  // third of the rows' bytes, read by every build for the few memories whose citations a build looks at).
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS parse_citations (sha256 TEXT PRIMARY KEY, path TEXT NOT NULL, citations TEXT NOT NULL) WITHOUT ROWID;
    `);
  },
];

/** The version whose migration made the `usage_events` table: an older file's usage log lines are carried over. */
export const USAGE_EVENTS_VERSION = 3;

export const SCHEMA_VERSION = MIGRATIONS.length;
