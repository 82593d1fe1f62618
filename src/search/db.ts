import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { addonOption, sqlite } from '../store/sqlite.js';
import { ANALYZER_VERSION } from './analyzer.js';

/**
 * The search database file, `.memvault/search/index.sqlite` (better-sqlite3,
 * SQLite with FTS5). WAL journal: a reader (a CLI search, the MCP server)
 * reads while a build writes, and each sees whole transactions only. Writes
 * take the write lock at the start of their transaction (`BEGIN IMMEDIATE`)
 * and wait up to `BUSY_MS` for another writer.
 *
 * The file is derived from the vault and disposable: one that is missing,
 * damaged, of another version or not ours (another SQLite database) is built
 * afresh beside it and renamed over it (`createAside`, `installAside`), so a
 * reader opens the old file or the whole new one, never a half-filled one.
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
/** Tables an index of this format has (`buckets` is made on first write: an index older than it is still current). */
const REQUIRED_TABLES = ['meta', 'docs', 'doc_tags', 'fts', 'fts_vocab'];

/**
 * Why a database was (re)built from the vault: there was none; it could not be read (not a SQLite file, damaged
 * pages); another version of ours; another SQLite database at our path (`foreign`).
 */
export type RebuildReason = 'missing' | 'unreadable' | 'outdated' | 'foreign';

/**
 * Whether an error says the file under a connection is not (or no longer) a usable index, so it is rebuilt from the
 * vault rather than reported: damaged pages (`SQLITE_CORRUPT*`), not a database (`SQLITE_NOTADB`), a file removed,
 * replaced or cut short under an open connection (`SQLITE_CANTOPEN*`, `SQLITE_IOERR*`, `SQLITE_READONLY_DBMOVED`,
 * `SQLITE_SCHEMA`), and tables or columns of ours missing (a foreign file that copied our `meta`).
 */
export function isIndexDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return false;
  if (/^SQLITE_(CORRUPT|NOTADB|CANTOPEN|IOERR|SCHEMA|READONLY_DBMOVED)/.test(code)) return true;
  return code === 'SQLITE_ERROR' && /^no such (table|column)/.test((error as Error).message);
}

/** What is in an opened file: our index of this version, an empty database, or why it must be built afresh. */
type FileState = 'current' | 'empty' | 'outdated' | 'foreign';

function inspect(db: Database.Database): FileState {
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  if (tables.size === 0) return 'empty';
  if (!tables.has('meta')) return 'foreign';
  let rows: { key: string; value: string }[];
  try {
    rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
  } catch (error) {
    // A `meta` table without our columns: another program's database. Damage is damage (the caller rebuilds too).
    if (isIndexDamage(error)) throw error;
    return 'foreign';
  }
  const version = Object.fromEntries(rows.map((r) => [r.key, r.value])) as { format?: string; analyzer?: string };
  if (version.format === undefined) return 'foreign';
  if (version.format !== String(FORMAT_VERSION) || version.analyzer !== String(ANALYZER_VERSION)) return 'outdated';
  return REQUIRED_TABLES.every((t) => tables.has(t)) ? 'current' : 'foreign';
}

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
 * Opens the database at the index's path as it is: our index of this version, or why it cannot be used (the caller
 * builds a new one aside). Any failure to open or read it (not a database, damaged, unreadable) is `unreadable`.
 */
function openExisting(root: string): { db: Database.Database } | { fresh: RebuildReason } {
  const file = databaseFile(root);
  let db: Database.Database | undefined;
  try {
    if (statSync(file).size === 0) return { fresh: 'missing' };
  } catch {
    return { fresh: 'missing' };
  }
  try {
    db = new (sqlite())(file, { fileMustExist: true, ...addonOption() });
    configure(db);
    const state = inspect(db);
    if (state === 'current') return { db };
    db.close();
    return { fresh: state === 'empty' ? 'missing' : state };
  } catch {
    db?.close();
    return { fresh: 'unreadable' };
  }
}

/**
 * Opens the database for reading: undefined when it is missing, not a
 * SQLite file, damaged at open, of another version or not ours (the caller
 * rebuilds it from the vault).
 */
export function openForReading(root: string): Database.Database | undefined {
  const opened = openExisting(root);
  return 'db' in opened ? opened.db : undefined;
}

/**
 * Opens the database for an update in place; `fresh` instead when it must be
 * built afresh (missing, unreadable, another version, foreign): the caller
 * then builds it aside (`createAside`) and swaps it in.
 */
export function openForWriting(root: string): { db: Database.Database } | { fresh: RebuildReason } {
  return openExisting(root);
}

/** Temporary files of a rebuild beside the index: `index.sqlite.<pid>-<n>.tmp` (never `-wal`/`-shm`, which are the index's). */
let asideCount = 0;
const ASIDE = /^index\.sqlite\.(\d+)-\d+\.tmp(-journal)?$/;
/** A rebuild's file left by a process that died mid-rebuild is removed by the next rebuild once it is this old. */
const STALE_ASIDE_MS = 10 * 60_000;

/**
 * A new, empty index in a temporary file beside the real one: filled by the caller, then `installAside` renames it
 * over the index. No WAL while it is filled (nobody else opens it), and no syncs: a crash leaves only a stray file.
 */
export function createAside(root: string): { db: Database.Database; file: string } {
  mkdirSync(searchDir(root), { recursive: true });
  sweepAside(root);
  const file = path.join(searchDir(root), `index.sqlite.${process.pid}-${++asideCount}.tmp`);
  rmSync(file, { force: true });
  const db = new (sqlite())(file, addonOption());
  try {
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = OFF');
    db.transaction(() => {
      for (const statement of SCHEMA) db.exec(statement);
      const setMeta = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
      setMeta.run('format', String(FORMAT_VERSION));
      setMeta.run('analyzer', String(ANALYZER_VERSION));
    })();
  } catch (error) {
    discardAside(db, file);
    throw error;
  }
  return { db, file };
}

/**
 * Puts a filled aside file in place of the index (its connection is closed here). The old file's WAL and shared
 * memory are removed first: they belong to the old file, and a new file beside them would read the old file's pages
 * from them. A process still holding the old file keeps reading it (and its WAL) until it next checks the path.
 */
export function installAside(root: string, db: Database.Database, file: string): void {
  db.close();
  const target = databaseFile(root);
  for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
  try {
    renameSync(file, target);
  } catch {
    // Where an open file cannot be renamed over (Windows), the old one is removed first.
    rmSync(target, { force: true });
    renameSync(file, target);
  }
}

/** Closes and removes an aside file that will not be installed. */
export function discardAside(db: Database.Database, file: string): void {
  if (db.open) db.close();
  for (const suffix of ['', '-journal']) rmSync(`${file}${suffix}`, { force: true });
}

/** Removes rebuild files of processes that died mid-rebuild (old enough that no live rebuild is still writing them). */
function sweepAside(root: string): void {
  let names: string[];
  try {
    names = readdirSync(searchDir(root));
  } catch {
    return;
  }
  for (const name of names) {
    if (!ASIDE.test(name)) continue;
    const file = path.join(searchDir(root), name);
    try {
      if (Date.now() - statSync(file).mtimeMs > STALE_ASIDE_MS) rmSync(file, { force: true });
    } catch {
      // Gone meanwhile.
    }
  }
}

/** An empty index in memory (a caller that needs an index but searches nothing, or one whose file cannot be used). */
export function openInMemory(): Database.Database {
  const db = new (sqlite())(':memory:', addonOption());
  for (const statement of SCHEMA) db.exec(statement);
  return db;
}
