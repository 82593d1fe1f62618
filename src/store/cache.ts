import type { Statement } from 'better-sqlite3';
import { DETECTOR_VERSION } from '../redact/version.js';
import { openStateStore, openStateStoreOrMemory, type StateStore } from './database.js';
import { kvTable } from './kv.js';
import { UserError } from '../util/errors.js';
import {
  type CacheEntry,
  decodeEntry,
  decodeStoredCitations,
  encodeEntry,
  type ListsRecord,
  listsOf,
  MEMORY_ROW,
  type StoredEntry,
  type StoredMemoryRow,
  storedCitationsOf,
} from './cache-codec.js';
import type { Citation } from '../vault/citation-model.js';
import type { Memory } from '../vault/model.js';
import type { CitationsReader } from './lazy-citations.js';
import type { HeadingSpan } from '../vault/markdown.js';
import type { Sentence } from '../vault/model.js';

/**
 * The parse cache, in the state store (`.memvault/state.sqlite`, store/):
 * - `parse_files`: per vault path, the file's size, mtime and SHA-256 and what
 *   parsing it gave (memory metadata, summary metadata, or diagnostics), as one
 *   JSON `entry`. A file whose size and mtime are unchanged is not read at all.
 *   Every build reads all of it, so it holds only what planning needs
 *   (cache-codec.ts).
 * - `parse_bodies`: parsed bodies (text, sentences, headings) by path, with the
 *   hash of the file they were parsed from; read only when a stage needs one.
 * - `parse_lists`: summaries' source lists and dropped items, by the summary
 *   file's SHA-256 (content-addressed, so a long-lived reader holding an older
 *   summary still finds its lists); read on first use of a list. Lists no
 *   file names any more are removed once they outnumber the live ones.
 * - `parse_citations`: memories' citations by the memory file's SHA-256, read
 *   when a stage first asks for a memory's (lazy-citations.ts): the citation
 *   step for the memories that changed or cite a file that did, the committed
 *   record for the lines it writes anew. Content-addressed and cleaned up as
 *   the lists are (state-store migration 5).
 * - the `parse-cache` rows of `kv`: the cache's key (version, time zone,
 *   detector: another one empties the cache) and its generation, which every
 *   save that changes an entry moves on.
 * A save is one transaction: a process killed mid-save leaves the cache as
 * the last save left it. Bodies may be written before the save
 * (`flushBodies`, a cold build's thousands of them): a body is read only for
 * the path and hash it was parsed from, so one no entry names yet is never
 * read, and one that replaced an older body only costs a parse. Losing the
 * cache only costs time: everything is rebuilt from the vault.
 */

/**
 * Bump when the shape of cached data or the parser's output changes (15: `kind: fact` memories with a `Fact:` line;
 * 16: memories carry `citations`; 17: a path citation carries the snippet its memory quotes). Not bumped for the move into the state store: the parse results are the same, the
 * old files are dropped anyway (store/legacy.ts), and the committed record's header names this version, so a bump has
 * every repository rewrite and commit its whole record.
 */
export const CACHE_VERSION = 17;

export type { CacheEntry, CachedResult } from './cache-codec.js';

export interface ParsedContent {
  body: string;
  sentences: Sentence[];
  /** Top-level headings of `body`; absent in content parsed before they were recorded. */
  headings?: HeadingSpan[];
}

/** The `kv` rows of the parse cache: `key` names what the entries were made with, `generation` what they hold. */
const META_STORE = 'parse-cache';

/** Lists (or citations) no entry names are removed when there are more of them than this many, and than live ones. */
const MIN_DEAD_LISTS = 256;
/** The `kv` row of the parse cache counting the entries written or forgotten since dead lists were last looked for. */
const CHANGED_KEY = 'changed-since-sweep';

/** Every `parse_files` row as one JSON object, path → entry (`json_quote` escapes the path; `entry` is JSON already). */
const ALL_ENTRIES = "SELECT '{' || group_concat(json_quote(path) || ':' || entry, ',') || '}' FROM parse_files";
/** The rows of the paths given as a JSON array, as `ALL_ENTRIES` gives them. */
const SOME_ENTRIES = `${ALL_ENTRIES} WHERE path IN (SELECT value FROM json_each(?))`;

export class ParseCache {
  /** Paths set or forgotten since the last save. */
  private readonly changed = new Set<string>();
  /** Bodies and lists set since the last save, written by `save`. */
  private readonly pendingBodies = new Map<string, { sha256: string; content: ParsedContent }>();
  private readonly pendingLists = new Map<string, ListsRecord>();
  /**
   * True once this process set or forgot an entry, saved or not. False after
   * a load that found every file as cached: what is derived from all entries
   * (the committed record) needs no rewrite.
   */
  modified = false;
  /** True once `flushBodies` emptied a cache of another key (its entries, bodies and lists): the save's rewrite keeps what it wrote since. */
  private cleared = false;
  /**
   * The entry each path had when the store last held exactly these entries (the read, or this process's last save),
   * for the paths set or forgotten since (`changesSinceSync`); undefined while that is not known: a cache of another
   * key, or a save that found another process's save before it.
   */
  private sinceSync: Map<string, CacheEntry | undefined> | undefined;
  private selectBody: Statement | undefined;
  private selectCitations: Statement | undefined;

  private constructor(
    private readonly store: StateStore,
    private readonly key: string,
    private readonly entries: Map<string, CacheEntry>,
    /** The generation the entries were read at; undefined when the store held another key's entries (all are written again). */
    private generation: number | undefined,
  ) {
    this.sinceSync = generation === undefined ? undefined : new Map();
  }

  /** True for a cache opened on some paths only (`openSome`): it is never saved (a save would take it for the whole vault). */
  private partial = false;

  /**
   * The entries of `paths` only, for a reader that needs a few files of a large vault (the session-start hook): bodies,
   * lists and citations are read as from the whole cache; `save` and `flushBodies` refuse.
   */
  static openSome(stateDir: string, timezone: string, paths: readonly string[]): ParseCache {
    const cache = ParseCache.openRows(stateDir, timezone, JSON.stringify(paths));
    cache.partial = true;
    return cache;
  }

  /** Opens the parse cache of the state folder `stateDir` (`.memvault/`); an outdated cache (version, zone, detector) starts empty. */
  static open(stateDir: string, timezone: string): ParseCache {
    return ParseCache.openRows(stateDir, timezone, undefined);
  }

  /** `open`, with the rows of every path, or of those in `some` (a JSON array of vault paths, `openSome`). */
  private static openRows(stateDir: string, timezone: string, some: string | undefined): ParseCache {
    const store = openStateStoreOrMemory(stateDir);
    // `rows`: how entries are stored (cache-codec.ts). Not `CACHE_VERSION`, which the committed record's header names too.
    const key = JSON.stringify({ version: CACHE_VERSION, timezone, detector: DETECTOR_VERSION, rows: MEMORY_ROW });
    const meta = metaTable(store);
    const entries = new Map<string, CacheEntry>();
    let opened: ParseCache | undefined;
    const readLists = (path: string, sha: string) => opened!.readLists(path, sha);
    const readCitations: CitationsReader = (memories) => opened!.readCitations(memories);
    // One read transaction: the key, the generation and the rows of one save.
    const generation = store.db.transaction((): number | undefined => {
      if (meta.get('key') !== key) return undefined;
      // Every row as one JSON object built by SQLite (path → entry): one string and one `JSON.parse`, as cheap as the
      // single file it replaced; 21,000 rows read one by one cost twice the time and garbage.
      const text = (some === undefined ? store.db.prepare(ALL_ENTRIES).pluck().get() : store.db.prepare(SOME_ENTRIES).pluck().get(some)) as
        | string
        | null;
      let stored: Record<string, StoredEntry | StoredMemoryRow>;
      try {
        stored = text ? (JSON.parse(text) as Record<string, StoredEntry | StoredMemoryRow>) : {};
      } catch {
        // Rows that do not make JSON (a damaged row): the cache starts empty and is written anew, the vault read again.
        return undefined;
      }
      for (const path in stored) entries.set(path, decodeEntry(path, stored[path]!, readLists, readCitations));
      return (meta.get('generation') as number | undefined) ?? 0;
    })();
    opened = new ParseCache(store, key, entries, generation);
    return opened;
  }

  /**
   * Names what the entries hold: the generation of the store's cache, which
   * every save that changes an entry moves on. Undefined once this process set
   * or forgot an entry, and for a cache of another key.
   */
  get state(): string | undefined {
    return this.modified || this.generation === undefined ? undefined : String(this.generation);
  }

  /**
   * The generation of the store whose entries this cache held at its read or last save, and the entry then of every
   * path set or forgotten since: what a writer of something derived from every entry (the committed record) needs to
   * know to redo only the part these paths touch. Undefined when not known (another key; a save that found another
   * process's save before it: the store then holds entries this cache never read).
   */
  changesSinceSync(): { generation: number; previous: ReadonlyMap<string, CacheEntry | undefined> } | undefined {
    return this.sinceSync && this.generation !== undefined ? { generation: this.generation, previous: this.sinceSync } : undefined;
  }

  /** The store's generation when it holds exactly this cache's entries (nothing set or forgotten since the read or save). */
  get syncedGeneration(): number | undefined {
    return this.sinceSync?.size === 0 && this.changed.size === 0 ? this.generation : undefined;
  }

  get(vaultPath: string): CacheEntry | undefined {
    return this.entries.get(vaultPath);
  }

  /** How many entries the cache holds. */
  get size(): number {
    return this.entries.size;
  }

  /** Every entry. */
  values(): IterableIterator<CacheEntry> {
    return this.entries.values();
  }

  /** Records a file's parse result; `content`, when given, is kept as its parsed body. */
  set(vaultPath: string, entry: CacheEntry, content?: ParsedContent): void {
    const stored: CacheEntry = { size: entry.size, mtimeMs: entry.mtimeMs, sha256: entry.sha256, result: entry.result };
    const previous = this.entries.get(vaultPath);
    if (content) this.pendingBodies.set(vaultPath, { sha256: entry.sha256, content });
    const headings = content?.headings ?? entry.headings ?? (previous?.sha256 === entry.sha256 ? previous.headings : undefined);
    if (headings) stored.headings = headings;
    const result = entry.result;
    // The same summary object has its lists stored already (they may not be read yet); a new one stores its lists.
    if (result.type === 'summary' && !(previous?.result === result && previous.sha256 === entry.sha256)) {
      const lists = listsOf(result.summary.meta);
      if (lists) this.pendingLists.set(entry.sha256, { path: vaultPath, lists });
    }
    if (this.sinceSync && !this.sinceSync.has(vaultPath)) this.sinceSync.set(vaultPath, previous);
    this.entries.set(vaultPath, stored);
    this.changed.add(vaultPath);
    this.modified = true;
  }

  /** Forgets paths that no longer exist. */
  retain(paths: ReadonlySet<string>): void {
    for (const key of this.entries.keys()) {
      if (!paths.has(key)) {
        if (this.sinceSync && !this.sinceSync.has(key)) this.sinceSync.set(key, this.entries.get(key));
        this.entries.delete(key);
        this.changed.add(key);
        this.modified = true;
      }
    }
  }

  /** The parsed body of a cached file, if the store has it for this hash. */
  readContent(vaultPath: string, sha: string): ParsedContent | undefined {
    const entry = this.entries.get(vaultPath);
    if (!entry || entry.sha256 !== sha) return undefined;
    const pending = this.pendingBodies.get(vaultPath);
    if (pending) return pending.sha256 === sha ? pending.content : undefined;
    try {
      this.selectBody ??= this.store.db.prepare('SELECT content FROM parse_bodies WHERE path = ? AND sha256 = ?').pluck();
      const row = this.selectBody.get(vaultPath, sha) as string | undefined;
      return row === undefined ? undefined : (JSON.parse(row) as ParsedContent);
    } catch {
      return undefined;
    }
  }

  /**
   * The lists of the summary at `key` whose file has `sha` (a lazy property of
   * its metadata reads them on first use). Unlike a body, they cannot be parsed
   * again from the file by the caller, so lists that are missing are an error.
   */
  readLists(key: string, sha: string): Record<string, unknown> {
    const pending = this.pendingLists.get(sha);
    if (pending) return pending.lists;
    let lists: unknown;
    try {
      const row = this.store.db.prepare('SELECT lists FROM parse_lists WHERE sha256 = ?').pluck().get(sha) as string | undefined;
      lists = row === undefined ? undefined : JSON.parse(row);
    } catch {
      // Reported below.
    }
    if (typeof lists !== 'object' || lists === null)
      throw new UserError('vault/cache-damaged', `the parse cache has no source list for \`${key}\``, { cache: this.store.file });
    return lists as Record<string, unknown>;
  }

  /**
   * The citations of the memories whose files have these hashes, by hash, in one query (a memory read from the store
   * reads them on first use of its `citations`). Like lists, they cannot be parsed again by the caller: missing ones
   * are an error.
   */
  readCitations(memories: readonly Pick<Memory, 'sha256' | 'path'>[]): Map<string, Citation[]> {
    const found = new Map<string, Citation[]>();
    try {
      this.selectCitations ??= this.store.db
        .prepare('SELECT sha256, citations FROM parse_citations WHERE sha256 IN (SELECT value FROM json_each(?))')
        .raw();
      const shas = JSON.stringify([...new Set(memories.map((m) => m.sha256))]);
      for (const [sha, text] of this.selectCitations.all(shas) as [string, string][]) found.set(sha, decodeStoredCitations(text));
    } catch {
      // Reported below.
    }
    const missing = memories.find((m) => !found.has(m.sha256));
    if (missing)
      throw new UserError('vault/cache-damaged', `the parse cache has no citations for \`${missing.path}\``, { cache: this.store.file });
    return found;
  }

  /** How many parsed bodies wait in memory for the save (or `flushBodies`). */
  get pendingBodyCount(): number {
    return this.pendingBodies.size;
  }

  /**
   * Writes the parsed bodies set since the last save to the store now, in one
   * transaction, and lets go of them: `readContent` reads them back from the
   * store. A cold build parses every memory and makes every summary before it
   * saves; held until then, they were most of the main thread's memory.
   * Returns the content hashes written. Entries wait for `save`.
   */
  flushBodies(): Set<string> {
    if (this.partial) throw new Error('a parse cache opened on some paths is never written (ParseCache.openSome)');
    const written = new Set<string>();
    if (this.pendingBodies.size === 0) return written;
    const { db } = this.store;
    const upsertBody = db.prepare('INSERT OR REPLACE INTO parse_bodies (path, sha256, content) VALUES (?, ?, ?)');
    this.store.transaction(() => {
      // A cache of another key is written anew at the save. Emptied now, so no process reads its entries with this key's
      // bodies; a new generation, so none that read them saves them back (load-session.ts).
      if (this.generation === undefined && !this.cleared) {
        const meta = this.clear();
        meta.set('generation', ((meta.get('generation') as number | undefined) ?? 0) + 1);
        this.cleared = true;
      }
      for (const [vaultPath, body] of this.pendingBodies) {
        if (this.entries.get(vaultPath)?.sha256 !== body.sha256) continue;
        upsertBody.run(vaultPath, body.sha256, JSON.stringify(body.content));
        written.add(body.sha256);
      }
    });
    this.pendingBodies.clear();
    return written;
  }

  /** Writes what changed since the last save, in one transaction, and moves the cache's generation on. */
  save(): void {
    if (this.partial) throw new Error('a parse cache opened on some paths is never written (ParseCache.openSome)');
    if (this.changed.size === 0 && this.generation !== undefined) return;
    const { db } = this.store;
    const rewrite = this.generation === undefined;
    const meta = metaTable(this.store);
    const upsertFile = db.prepare(
      'INSERT INTO parse_files (path, sha256, entry) VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET sha256 = excluded.sha256, entry = excluded.entry',
    );
    const deleteFile = db.prepare('DELETE FROM parse_files WHERE path = ?');
    const upsertBody = db.prepare('INSERT OR REPLACE INTO parse_bodies (path, sha256, content) VALUES (?, ?, ?)');
    const deleteBody = db.prepare('DELETE FROM parse_bodies WHERE path = ?');
    const insertLists = db.prepare('INSERT OR IGNORE INTO parse_lists (sha256, path, lists) VALUES (?, ?, ?)');
    const insertCitations = db.prepare('INSERT OR IGNORE INTO parse_citations (sha256, path, citations) VALUES (?, ?, ?)');
    let synced = false;
    this.store.transaction(() => {
      if (rewrite && !this.cleared) this.clear();
      const paths = rewrite ? this.entries.keys() : this.changed;
      let written = 0;
      for (const vaultPath of paths) {
        written++;
        const entry = this.entries.get(vaultPath);
        if (!entry) {
          deleteFile.run(vaultPath);
          deleteBody.run(vaultPath);
          continue;
        }
        const { sha256 } = entry;
        upsertFile.run(vaultPath, sha256, JSON.stringify(encodeEntry(entry, vaultPath)));
        const body = this.pendingBodies.get(vaultPath);
        if (body && body.sha256 === sha256) upsertBody.run(vaultPath, sha256, JSON.stringify(body.content));
        const lists = this.pendingLists.get(sha256);
        if (lists) insertLists.run(sha256, lists.path, JSON.stringify(lists.lists));
        // Citations not read yet are in the table already (under this hash: the entry was read with them).
        const citations = storedCitationsOf(entry.result);
        if (citations !== undefined) insertCitations.run(sha256, vaultPath, citations);
      }
      // A list or citations row no entry names is left only by an entry written or forgotten: they are looked for once
      // enough entries changed since the last look, not at every save (counting the live ones walks every entry, ~30-60
      // ms of an edit's build at 20,000 memories).
      const changedSinceLook = ((meta.get(CHANGED_KEY) as number | undefined) ?? 0) + written;
      if (changedSinceLook >= MIN_DEAD_LISTS) {
        this.removeDeadLists();
        this.removeDeadCitations();
      }
      meta.set(CHANGED_KEY, changedSinceLook >= MIN_DEAD_LISTS ? 0 : changedSinceLook);
      const stored = meta.get('generation') as number | undefined;
      // The store now holds exactly these entries when it held them before this save (or all were written again).
      synced = rewrite || (stored ?? 0) === this.generation;
      this.generation = (stored ?? 0) + 1;
      meta.set('generation', this.generation);
    });
    this.sinceSync = synced ? new Map() : undefined;
    this.changed.clear();
    this.cleared = false;
    this.pendingBodies.clear();
    this.pendingLists.clear();
  }

  /** Empties the store's cache and names it with this cache's key (a rewrite; inside a transaction); returns its `kv` rows. */
  private clear(): ReturnType<typeof metaTable> {
    this.store.db.exec('DELETE FROM parse_files; DELETE FROM parse_bodies; DELETE FROM parse_lists; DELETE FROM parse_citations');
    const meta = metaTable(this.store);
    meta.set('key', this.key);
    return meta;
  }

  /** Nothing to close: the state store stays open for the process (kept for the callers that end a session). */
  close(): void {}

  /** Removes the lists no entry names once they are many and outnumber the live ones. */
  private removeDeadLists(): void {
    const { db } = this.store;
    const lists = db.prepare('SELECT count(*) FROM parse_lists').pluck().get() as number;
    if (lists < MIN_DEAD_LISTS) return;
    let live = 0;
    for (const entry of this.entries.values()) if (entry.result.type === 'summary') live++;
    if (lists - live <= live) return;
    db.exec('DELETE FROM parse_lists WHERE sha256 NOT IN (SELECT sha256 FROM parse_files)');
  }

  /** Removes the citations no entry names once they are many and outnumber the live ones (an edit leaves one behind). */
  private removeDeadCitations(): void {
    const { db } = this.store;
    const rows = db.prepare('SELECT count(*) FROM parse_citations').pluck().get() as number;
    if (rows < MIN_DEAD_LISTS) return;
    let live = 0;
    for (const entry of this.entries.values())
      if (entry.result.type === 'memory' && Object.hasOwn(entry.result.memory, 'citations')) live++;
    if (rows - live <= live) return;
    db.exec('DELETE FROM parse_citations WHERE sha256 NOT IN (SELECT sha256 FROM parse_files)');
  }
}

/**
 * Identifies a version of the parse cache in the store of `stateDir` (`.memvault/`): its generation, which moves with
 * every save that changes an entry. A session holding a loaded cache saves it only while this is unchanged (load-session.ts,
 * read/cache-save.ts): another process that saved since wrote newer entries.
 */
export function parseCacheStamp(stateDir: string): string {
  try {
    return String(metaTable(openStateStore(stateDir)).get('generation') ?? 0);
  } catch {
    return 'none';
  }
}

/**
 * Empties the parse cache in `stateDir` and the derived memo beside it (the kept summaries of sampled periods
 * too: they quote memories), and
 * leaves no copy of their text in the file: after `memvault redact`, the text
 * it replaced may be in an entry, a body or the lists of a summary built from
 * it. SQLite keeps deleted rows in free pages and in its WAL, so the WAL is
 * checkpointed and the file vacuumed. Call under the build lock.
 */
export function purgeParseCache(stateDir: string): void {
  const store = openStateStore(stateDir);
  // Deleted rows' pages are overwritten with zeros, besides the vacuum below.
  store.db.pragma('secure_delete = ON');
  store.transaction(() => {
    store.db.exec(
      "DELETE FROM parse_files; DELETE FROM parse_bodies; DELETE FROM parse_lists; DELETE FROM parse_citations; DELETE FROM kv WHERE store IN ('derived', 'rollups')",
    );
    const meta = metaTable(store);
    meta.delete('key');
    // A new generation: a long-lived process (watch, the MCP server) holding the old entries must not save them back.
    meta.set('generation', ((meta.get('generation') as number | undefined) ?? 0) + 1);
  });
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.db.exec('VACUUM');
  store.db.pragma('wal_checkpoint(TRUNCATE)');
}

/** The cache's key (a string) and generation (a number). */
function metaTable(store: StateStore) {
  return kvTable<string | number>(store, META_STORE, (raw) => (typeof raw === 'string' || typeof raw === 'number' ? raw : undefined));
}
