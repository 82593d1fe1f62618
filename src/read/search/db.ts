import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { ANALYZER_VERSION } from './analyzer.js';

/**
 * The search database file, `.memvault/search/index.sqlite` (better-sqlite3,
 * SQLite with FTS5). WAL journal: a reader (a CLI search, the MCP server)
 * reads while a build writes, and each sees whole transactions only. Writes
 * take the write lock at the start of their transaction (`BEGIN IMMEDIATE`)
 * and wait up to `BUSY_MS` for another writer.
 */

/** Bump when the tables change: a database of another version is rebuilt. */
export const FORMAT_VERSION = 4;
const BUSY_MS = 15_000;

export const searchDir = (root: string): string => path.join(root, '.memvault', 'search');
export const databaseFile = (root: string): string => path.join(searchDir(root), 'index.sqlite');

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID',
  `CREATE TABLE IF NOT EXISTS docs (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL, tier TEXT NOT NULL,
    kind TEXT NOT NULL, tags TEXT NOT NULL, title TEXT NOT NULL, first_day TEXT NOT NULL, last_day TEXT NOT NULL, period TEXT NOT NULL,
    date TEXT NOT NULL, sha256 TEXT NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS docs_date ON docs (date)',
  'CREATE TABLE IF NOT EXISTS doc_tags (tag TEXT NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (tag, doc)) WITHOUT ROWID',
  // Contentless: the stems are indexed, not stored (snippets read the file); contentless_delete lets a changed document be replaced.
  `CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (title, text, tags, content = '', contentless_delete = 1,
    tokenize = "unicode61 remove_diacritics 0 tokenchars '-_'")`,
  'CREATE VIRTUAL TABLE IF NOT EXISTS fts_vocab USING fts5vocab (fts, row)',
];
const TABLES = ['fts_vocab', 'fts', 'doc_tags', 'docs', 'meta', 'buckets'];

/** Why a database was (re)built from the vault. */
export type RebuildReason = 'missing' | 'unreadable' | 'outdated';

// Loaded on first use: a command that never searches does not load the native addon.
let driver: typeof Database | undefined;
function sqlite(): typeof Database {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return driver;
}

/**
 * Where the addon is, when it is where npm builds it: passed as `nativeBinding`, so better-sqlite3 does not look for
 * it through the `bindings` package, whose search (failed `require`s of other build folders, a stack trace to find the
 * package root) cost ~15-25 ms of every CLI search. Elsewhere (another build type), the package finds it as before.
 */
let addon: { nativeBinding?: string } | undefined;
function addonOption(): { nativeBinding?: string } {
  if (!addon) {
    let file: string | undefined;
    try {
      file = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      file = undefined;
    }
    addon = file && existsSync(file) ? { nativeBinding: file } : {};
  }
  return addon;
}

function versionOf(db: Database.Database): { format?: string; analyzer?: string } {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!hasMeta) return {};
  const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

const current = (v: { format?: string; analyzer?: string }): boolean =>
  v.format === String(FORMAT_VERSION) && v.analyzer === String(ANALYZER_VERSION);

function configure(db: Database.Database): void {
  db.pragma(`busy_timeout = ${BUSY_MS}`);
  db.pragma('journal_mode = WAL');
  // In WAL, NORMAL loses at most the last transactions on power loss, never consistency; the index is rebuilt from the vault anyway.
  db.pragma('synchronous = NORMAL');
  // Pages read through a memory map instead of read() calls into a cold page cache: a CLI search ranks in ~18 ms instead
  // of ~58 ms at 20,000 memories (its process starts with an empty cache; a warm one is unchanged). SQLite maps at most
  // this much and falls back to reads beyond it.
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
}

const MMAP_BYTES = 256 * 1024 * 1024;

/**
 * Opens the database for reading: undefined when it is missing, not a
 * SQLite file, or of another version (the caller rebuilds it from the vault).
 */
export function openForReading(root: string): Database.Database | undefined {
  const file = databaseFile(root);
  if (!existsSync(file)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new (sqlite())(file, { fileMustExist: true, ...addonOption() });
    configure(db);
    if (!current(versionOf(db))) throw new Error('outdated');
    return db;
  } catch {
    db?.close();
    return undefined;
  }
}

/**
 * Opens the database for writing, creating it when missing. A file that is
 * not a readable SQLite database is removed (with its WAL) and created again;
 * one of another version has its tables dropped and created again, in one
 * transaction, so a reader sees the old index or the new, never half.
 * `fresh` says why the tables are new (the caller fills them from the vault).
 */
export function openForWriting(root: string, force = false): { db: Database.Database; fresh?: RebuildReason } {
  mkdirSync(searchDir(root), { recursive: true });
  const file = databaseFile(root);
  let fresh: RebuildReason | undefined = existsSync(file) && statSync(file).size > 0 ? undefined : 'missing';
  let db: Database.Database;
  try {
    db = new (sqlite())(file, addonOption());
    configure(db);
    versionOf(db);
  } catch {
    // Not a database (or damaged beyond reading): start over.
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    db = new (sqlite())(file, addonOption());
    configure(db);
    fresh = 'unreadable';
  }
  db.transaction(() => {
    const version = versionOf(db);
    if (version.format !== undefined && (!current(version) || force)) {
      for (const table of TABLES) db.exec(`DROP TABLE IF EXISTS ${table}`);
      fresh ??= 'outdated';
    } else if (version.format === undefined) fresh ??= 'missing';
    for (const statement of SCHEMA) db.exec(statement);
    const setMeta = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    setMeta.run('format', String(FORMAT_VERSION));
    setMeta.run('analyzer', String(ANALYZER_VERSION));
  }).immediate();
  return { db, ...(fresh ? { fresh } : {}) };
}

/** An empty index in memory (a caller that needs an index but searches nothing). */
export function openInMemory(): Database.Database {
  const db = new (sqlite())(':memory:', addonOption());
  for (const statement of SCHEMA) db.exec(statement);
  return db;
}
