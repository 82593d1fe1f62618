import { mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { crashPoint } from '../util/crash-point.js';
import { UserError } from '../util/errors.js';
import { importLegacyFiles, OBSOLETE_PATHS } from './legacy.js';
import { importLegacyUsageLog } from './legacy-usage-log.js';
import { MIGRATIONS, SCHEMA_VERSION, USAGE_EVENTS_VERSION } from './schema.js';
import { addonOption, STATE_FILE, sqlite } from './sqlite.js';

/**
 * The project's state store, `.memvault/state.sqlite` (better-sqlite3): the
 * parse cache, the vectors of semantic search, and the small stores (derived
 * memo, facts --check answers, session-start answer, config cache, the record
 * of uncommitted outputs, swept folders, ingest completion records) in one
 * SQLite file instead of a hand-made format each.
 *
 * - One connection per file and process (`openStateStore` hands back the open
 *   one; a file replaced or removed under it, by `redact` or a test, is opened
 *   anew).
 * - WAL journal: a reader (the MCP server, a CLI search) reads while a build
 *   writes, and each sees whole transactions only. A process killed mid-write
 *   (kill -9, power cut) leaves the last committed transaction: there is no
 *   crash ordering between files to get right any more.
 * - `PRAGMA user_version` is the schema version; `MIGRATIONS` (schema.ts) takes
 *   an older file up to it in one transaction. A file of a newer memvault is
 *   an error (a downgrade): it is not ours to rewrite.
 * - A file that is not a database or is damaged is moved aside and started
 *   afresh: what it held is rebuilt from the vault (caches) or is a record of
 *   uncommitted outputs that `git status` also shows.
 */

export { STATE_FILE };
const BUSY_MS = 15_000;

export interface StateStore {
  readonly db: Database.Database;
  /** `.memvault/state.sqlite` */
  readonly file: string;
  /** Runs `work` in one write transaction (BEGIN IMMEDIATE: the write lock is taken first, waiting up to 15 s). */
  transaction<T>(work: () => T): T;
}

interface OpenStore {
  store: StateStore;
  /** Device and inode of the file when it was opened: another file at the path is opened anew. */
  identity: string;
}

/** The open stores of this process, by file. */
const open = new Map<string, OpenStore>();

/**
 * The state store of the project whose state folder is `stateDir` (`.memvault/`), created on first use.
 *
 * @example
 *   const store = openStateStore(path.join(root, '.memvault'));
 *   store.transaction(() => store.db.prepare('DELETE FROM kv WHERE store = ?').run('derived'));
 */
export function openStateStore(stateDir: string): StateStore {
  const file = path.resolve(stateDir, STATE_FILE);
  const known = open.get(file);
  if (known?.store.db.open && identityOf(file) === known.identity) return known.store;
  if (known) closeOne(file, known);
  mkdirSync(path.dirname(file), { recursive: true });
  let db: Database.Database;
  try {
    db = connect(file);
  } catch (error) {
    if (!isDamage(error)) throw error;
    moveAside(file);
    db = connect(file);
  }
  const store: StateStore = {
    db,
    file,
    transaction: (work) =>
      db
        .transaction(() => {
          const result = work();
          crashPoint('store-commit'); // tests: a kill here, the work done and not committed, must leave the last commit
          return result;
        })
        .immediate(),
  };
  open.set(file, { store, identity: identityOf(file) });
  return store;
}

/**
 * The state store of `stateDir`, or, when it cannot be opened (a read-only folder, a file of a newer memvault), an
 * empty one in memory: for a cache a read command only saves time with, losing it is better than failing the command.
 */
export function openStateStoreOrMemory(stateDir: string): StateStore {
  try {
    return openStateStore(stateDir);
  } catch {
    const db = new (sqlite())(':memory:', addonOption());
    for (const migration of MIGRATIONS) migration(db);
    return { db, file: ':memory:', transaction: (work) => db.transaction(work).immediate() };
  }
}

/**
 * `build --dry-run`: until the returned function is called, this process's store of `stateDir` is a copy of the file
 * in memory (an empty store when there is none, or it cannot be read): the dry run reads the caches a build would and
 * writes nothing under `.memvault/` (no WAL, no migration, no file created). A WAL beside the file (a build running)
 * is not read: the copy is the last checkpoint, a cache a little older.
 */
export function useStateSnapshot(stateDir: string): () => void {
  const file = path.resolve(stateDir, STATE_FILE);
  // A connection this process holds (watch, tests) is set aside, not closed: what reads through it keeps working after.
  const known = open.get(file);
  const db = snapshotOf(file);
  const store: StateStore = { db, file, transaction: (work) => db.transaction(work).immediate() };
  open.set(file, { store, identity: identityOf(file) });
  return () => {
    if (open.get(file)?.store === store) {
      if (known) open.set(file, known);
      else open.delete(file);
    }
    if (db.open) db.close();
  };
}

function snapshotOf(file: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    const bytes = readFileSync(file);
    // A WAL-mode file cannot be opened in memory: its header (bytes 18, 19) says rollback journal instead.
    bytes[18] = 1;
    bytes[19] = 1;
    db = new (sqlite())(bytes, addonOption());
    const from = db.pragma('user_version', { simple: true }) as number;
    if (from > SCHEMA_VERSION) throw new Error('a newer schema');
    for (let at = from; at < SCHEMA_VERSION; at++) MIGRATIONS[at]!(db);
    return db;
  } catch {
    db?.close();
    const empty = new (sqlite())(':memory:', addonOption());
    for (const migration of MIGRATIONS) migration(empty);
    return empty;
  }
}

/** Closes every store this process opened (tests; `redact` before it removes the file). */
export function closeStateStores(): void {
  for (const [file, known] of open) closeOne(file, known);
}

/** Closes the store of `stateDir` if this process opened it. */
export function closeStateStore(stateDir: string): void {
  const file = path.resolve(stateDir, STATE_FILE);
  const known = open.get(file);
  if (known) closeOne(file, known);
}

function closeOne(file: string, known: OpenStore): void {
  open.delete(file);
  try {
    if (known.store.db.open) known.store.db.close();
  } catch {
    // Already unusable: nothing to close.
  }
}

function connect(file: string): Database.Database {
  const db = new (sqlite())(file, addonOption());
  try {
    db.pragma(`busy_timeout = ${BUSY_MS}`);
    db.pragma('journal_mode = WAL');
    // In WAL, NORMAL loses at most the last transactions on power loss, never consistency.
    db.pragma('synchronous = NORMAL');
    migrate(db, path.dirname(file));
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Takes the file up to `SCHEMA_VERSION`, importing the files of the stores it replaces; then removes those files. */
function migrate(db: Database.Database, stateDir: string): void {
  const version = (): number => db.pragma('user_version', { simple: true }) as number;
  if (version() !== SCHEMA_VERSION) {
    db.transaction(() => {
      // Read again under the write lock: another process may have migrated meanwhile.
      const from = version();
      if (from > SCHEMA_VERSION)
        throw new UserError(
          'store/newer',
          `${path.join(stateDir, STATE_FILE)} was written by a newer memvault (schema ${from}, this one knows ${SCHEMA_VERSION})`,
          { file: path.join(stateDir, STATE_FILE) },
        );
      for (let at = from; at < SCHEMA_VERSION; at++) MIGRATIONS[at]!(db);
      if (from === 0) importLegacyFiles(db, stateDir);
      if (from < USAGE_EVENTS_VERSION) importLegacyUsageLog(db, stateDir);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  }
  // After the commit, and at every open: a process killed between the two finds them here next time.
  for (const obsolete of OBSOLETE_PATHS) rmSync(path.join(stateDir, obsolete), { recursive: true, force: true });
}

/** A file that is not a database, or damaged: moved aside (with its WAL) so the store starts afresh. */
function moveAside(file: string): void {
  for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  try {
    renameSync(file, `${file}.damaged`);
  } catch {
    rmSync(file, { force: true });
  }
}

function isDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

function identityOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}
