import type Database from 'better-sqlite3';
import type { SearchDoc } from './documents.js';
import { analyze } from './analyzer.js';
import { bucketOf, bucketRange, Digest, digestsOf } from './buckets.js';
import { isIndexDamage, openInMemory } from './db.js';
import type { MatchPlan } from './match.js';

export { ANALYZER_VERSION, processTerm, tokenize } from './analyzer.js';

/**
 * The BM25 index over memories and summaries: SQLite FTS5 tables in one
 * database (db.ts opens it). `docs` holds each document's metadata and
 * content hash (the manifest a build compares with), `fts` its stems
 * (contentless: the text is not stored, snippets read the file), `doc_tags`
 * its tags for `tag:` filters. A query reads only the postings of its terms
 * and the rows of its hits, so a new process answers without loading the
 * index.
 */

/** A document as it is indexed: the metadata plus its text (stems stored, text not). */
export type IndexedDoc = SearchDoc & { text: string };

/** A ranked hit: the stored fields, the score (higher is better) and the stems it matched (for its snippet). */
export type RankedDoc = SearchDoc & { score: number; terms: string[] };

/** Field filters of a query, applied in SQL. Empty lists filter nothing. */
export interface DocFilter {
  streams: string[];
  tiers: string[];
  /** Lowercased. */
  kinds: string[];
  /** Lowercased; a document must carry each. */
  tags: string[];
  since?: string;
  until?: string;
}

/** The manifest's buckets (buckets.ts); `meta.buckets` says they were filled from the whole table with this version of the digest. */
const BUCKETS_TABLE = 'CREATE TABLE IF NOT EXISTS buckets (key TEXT PRIMARY KEY, digest TEXT NOT NULL) WITHOUT ROWID';
const BUCKETS_VERSION = '1';

/** Column weights of bm25(): a word in the title counts double, in a tag one and a half (minisearch's boosts before). */
const WEIGHTS = { title: 2, text: 1, tags: 1.5 };

interface DocRow {
  rowid: number;
  id: string;
  stream: string;
  tier: string;
  kind: string;
  tags: string;
  title: string;
  first_day: string;
  last_day: string;
  period: string;
  date: string;
  sha256: string;
}

const COLUMNS = 'd.rowid, d.id, d.stream, d.tier, d.kind, d.tags, d.title, d.first_day, d.last_day, d.period, d.date, d.sha256';

/** A row's tags (a JSON list this program wrote; a damaged one reads as none rather than failing the search). */
function tagsOf(text: string): string[] {
  try {
    const tags: unknown = JSON.parse(text);
    return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
  } catch {
    return [];
  }
}

const docOf = (row: DocRow): SearchDoc => ({
  id: row.id,
  stream: row.stream,
  tier: row.tier,
  kind: row.kind,
  tags: tagsOf(row.tags),
  title: row.title,
  start: row.first_day,
  end: row.last_day,
  period: row.period,
  date: row.date,
  sha256: row.sha256,
});

/** SQL for a filter, with its parameters. */
function whereOf(filter: DocFilter): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  const among = (column: string, values: string[]): void => {
    if (values.length === 0) return;
    parts.push(`${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  among('d.stream', filter.streams);
  among('d.tier', filter.tiers);
  among('lower(d.kind)', filter.kinds);
  for (const tag of filter.tags) {
    parts.push('EXISTS (SELECT 1 FROM doc_tags t WHERE t.tag = ? AND t.doc = d.rowid)');
    params.push(tag);
  }
  if (filter.since !== undefined) {
    parts.push('d.last_day >= ?');
    params.push(filter.since);
  }
  if (filter.until !== undefined) {
    parts.push('d.first_day <= ?');
    params.push(filter.until);
  }
  return { sql: parts.length ? parts.join(' AND ') : '1', params };
}

export class SearchIndex {
  private readonly statements = new Map<string, Database.Statement>();

  private handle: Database.Database | undefined;

  /** Transactions this connection wrote (SQLite's `data_version` counts only other connections' commits). */
  private writes = 0;

  /** What replaces the connection when a read meets damage, once (`ensureSearchIndex` sets it: it has the vault to rebuild from). */
  private recovery: (() => Database.Database) | undefined;

  /** `db` may be a function opening it: an index nobody queries (the session-start hook's) never loads SQLite. */
  constructor(private readonly source: Database.Database | (() => Database.Database)) {}

  /**
   * On the next read that meets damage (a page of the postings the open did not touch, a file replaced under the
   * connection), `recover` gives the connection to use instead (a rebuilt file, or memory) and the read runs again.
   */
  recoverWith(recover: () => Database.Database): void {
    this.recovery = recover;
  }

  /** Runs a read; on damage, once, on the connection `recoverWith` gives. */
  private read<T>(run: () => T): T {
    try {
      return run();
    } catch (error) {
      const recover = this.recovery;
      if (!recover || !isIndexDamage(error)) throw error;
      this.recovery = undefined;
      const db = recover();
      if (this.handle?.open && this.handle !== db) this.handle.close();
      this.handle = db;
      this.statements.clear();
      this.writes++;
      return run();
    }
  }

  get db(): Database.Database {
    this.handle ??= typeof this.source === 'function' ? this.source() : this.source;
    return this.handle;
  }

  /** A prepared statement, prepared once per connection. */
  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Changes whenever the index does: a commit by another connection (a build, `watch`) or by this one. What a warm
   * process remembers of search results is keyed by it. An index nobody opened yet has one generation.
   */
  generation(): string {
    if (!this.handle && typeof this.source === 'function') return 'unopened';
    return `${this.db.pragma('data_version', { simple: true }) as number}:${this.writes}`;
  }

  /** Documents in the index. */
  get size(): number {
    return this.read(() => (this.statement('SELECT count(*) AS n FROM docs').get() as { n: number }).n);
  }

  /** Path → content hash of every indexed document. */
  hashes(): Map<string, string> {
    return this.read(() => new Map(this.statement('SELECT id, sha256 FROM docs').raw().all() as [string, string][]));
  }

  /** Path → content hash of the documents in `buckets` (buckets.ts): a prefix range of the `id` index per bucket. */
  hashesIn(buckets: Iterable<string>): Map<string, string> {
    const range = this.statement('SELECT id, sha256 FROM docs WHERE id >= ? AND id < ?').raw();
    const out = new Map<string, string>();
    for (const bucket of buckets)
      for (const [id, sha] of range.all(...bucketRange(bucket)) as [string, string][]) if (bucketOf(id) === bucket) out.set(id, sha);
    return out;
  }

  /**
   * Bucket → digest of what `docs` holds, as `write` keeps it; undefined when
   * the buckets were never filled from the whole table (an index written
   * before they existed, or a fresh one): the caller then compares every row.
   */
  bucketDigests(): Map<string, string> | undefined {
    const marker = this.statement("SELECT value FROM meta WHERE key = 'buckets'").pluck().get() as string | undefined;
    if (marker !== BUCKETS_VERSION) return undefined;
    return new Map(this.statement('SELECT key, digest FROM buckets').raw().all() as [string, string][]);
  }

  /** Works out every bucket's digest from the whole `docs` table and marks them complete (once per index). */
  fillBuckets(): void {
    this.db
      .transaction(() => {
        this.db.exec(BUCKETS_TABLE);
        this.db.exec('DELETE FROM buckets');
        const rows = this.statement('SELECT id, sha256 FROM docs').raw().all() as [string, string][];
        const digests = digestsOf((visit) => {
          for (const [id, sha] of rows) visit(id, sha);
        });
        const put = this.statement('INSERT OR REPLACE INTO buckets (key, digest) VALUES (?, ?)');
        for (const [key, digest] of digests) put.run(key, digest.toString());
        this.statement("INSERT OR REPLACE INTO meta (key, value) VALUES ('buckets', ?)").run(BUCKETS_VERSION);
      })
      .immediate();
    this.writes++;
  }

  /** Recomputes the digests of `buckets` from `docs` (inside `write`'s transaction). */
  private refreshBuckets(buckets: ReadonlySet<string>): void {
    const put = this.statement('INSERT OR REPLACE INTO buckets (key, digest) VALUES (?, ?)');
    const drop = this.statement('DELETE FROM buckets WHERE key = ?');
    for (const bucket of buckets) {
      const digest = new Digest();
      for (const [id, sha] of this.hashesIn([bucket])) digest.add(id, sha);
      if (digest.n === 0) drop.run(bucket);
      else put.run(bucket, digest.toString());
    }
  }

  /** The stored fields of one document. */
  stored(id: string): SearchDoc | undefined {
    const row = this.read(() => this.statement(`SELECT ${COLUMNS} FROM docs d WHERE d.id = ?`).get(id) as DocRow | undefined);
    return row ? docOf(row) : undefined;
  }

  /** Whether the index holds this stem as a term (the fuzzy fallback asks before expanding a word). */
  hasTerm(stem: string): boolean {
    return this.read(() => this.statement('SELECT 1 FROM fts_vocab WHERE term = ?').get(stem) !== undefined);
  }

  /**
   * Terms of the index from `low` (inclusive) to `high` (exclusive): the candidates of a misspelt word; at most `limit`
   * (the vocabulary table reads each term's whole list of documents, so asking whether a prefix exists stops at one).
   */
  termsBetween(low: string, high: string, limit = -1): string[] {
    return this.read(
      () => this.statement('SELECT term FROM fts_vocab WHERE term >= ? AND term < ? LIMIT ?').pluck().all(low, high, limit) as string[],
    );
  }

  /**
   * The best `limit` documents for a match plan (match.ts) that pass the
   * filter, by FTS5's BM25 (higher is better); none when the plan matches
   * nothing. One statement: FTS5 scores every match in C and SQLite keeps the
   * best. FTS5's idf, `ln((N − n + 0.5) / (n + 0.5))` floored at 1e-6, gives a
   * word found in more than half the documents almost no weight; scoring each
   * word apart with BM25+'s idf instead scored the same on the LoCoMo eval and
   * cost 5–10 times the time (every match of every word brought into
   * JavaScript), so FTS5's ranking stays. Ties (frequent in a small vault,
   * where most words are that common): a memory before a summary, then path.
   */
  rank(plan: MatchPlan, filter: DocFilter, limit: number): RankedDoc[] {
    if (!plan.expression) return [];
    const where = whereOf(filter);
    const sql =
      `SELECT ${COLUMNS}, -bm25(fts, ${WEIGHTS.title}, ${WEIGHTS.text}, ${WEIGHTS.tags}) AS score ` +
      `FROM fts JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ? AND ${where.sql} ` +
      `ORDER BY score DESC, d.tier = 'memories' DESC, d.id LIMIT ?`;
    const rows = this.read(() => this.statement(sql).all(plan.expression, ...where.params, limit) as (DocRow & { score: number })[]);
    return rows.map((row) => ({ ...docOf(row), score: row.score, terms: plan.terms }));
  }

  /** The newest `limit` documents that pass the filter (a query of filters only). */
  newest(filter: DocFilter, limit: number): RankedDoc[] {
    const where = whereOf(filter);
    const sql = `SELECT ${COLUMNS} FROM docs d WHERE ${where.sql} ORDER BY d.date DESC, d.id LIMIT ?`;
    const rows = this.read(() => this.statement(sql).all(...where.params, limit) as DocRow[]);
    return rows.map((row) => ({ ...docOf(row), score: 0, terms: [] }));
  }

  /** Adds or replaces documents and removes paths, in one transaction. */
  write(put: readonly IndexedDoc[], remove: readonly string[]): void {
    const rowOf = this.statement('SELECT rowid FROM docs WHERE id = ?').pluck();
    const dropFts = this.statement('DELETE FROM fts WHERE rowid = ?');
    const dropTags = this.statement('DELETE FROM doc_tags WHERE doc = ?');
    const dropDoc = this.statement('DELETE FROM docs WHERE rowid = ?');
    const addDoc = this.statement(
      'INSERT INTO docs (id, stream, tier, kind, tags, title, first_day, last_day, period, date, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const addFts = this.statement('INSERT INTO fts (rowid, title, text, tags) VALUES (?, ?, ?, ?)');
    const addTag = this.statement('INSERT OR IGNORE INTO doc_tags (tag, doc) VALUES (?, ?)');
    const drop = (id: string): void => {
      const rowid = rowOf.get(id) as number | undefined;
      if (rowid === undefined) return;
      dropFts.run(rowid);
      dropTags.run(rowid);
      dropDoc.run(rowid);
    };
    this.db
      .transaction(() => {
        // Made here: a connection opened for reading an index written before the table existed may be the one that writes.
        this.db.exec(BUCKETS_TABLE);
        for (const id of remove) drop(id);
        for (const doc of put) {
          drop(doc.id);
          const { lastInsertRowid } = addDoc.run(
            doc.id,
            doc.stream,
            doc.tier,
            doc.kind,
            JSON.stringify(doc.tags),
            doc.title,
            doc.start,
            doc.end,
            doc.period,
            doc.date,
            doc.sha256,
          );
          addFts.run(lastInsertRowid, analyze(doc.title), analyze(doc.text), analyze(doc.tags.join(' ')));
          for (const tag of new Set(doc.tags.map((t) => t.toLowerCase()))) addTag.run(tag, lastInsertRowid);
        }
        this.refreshBuckets(new Set([...remove, ...put.map((doc) => doc.id)].map(bucketOf)));
      })
      .immediate();
    this.writes++;
  }
}

/** An empty index in memory, for a context that searches nothing (the session-start hook). */
export function createIndex(): SearchIndex {
  return new SearchIndex(openInMemory);
}

export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
}

/**
 * Brings `index` in line with `docs`: a document whose content hash is
 * unchanged is not touched; a new one is added, a changed one replaced, a
 * gone one removed. Only changed documents' text is read. `known` is what
 * the index holds (path → hash), read from it when not given.
 */
export function syncIndex(
  index: SearchIndex,
  docs: readonly SearchDoc[],
  text: (doc: SearchDoc) => string,
  known: Map<string, string> = index.hashes(),
): SyncCounts {
  const counts: SyncCounts = { added: 0, updated: 0, removed: 0 };
  const present = new Set<string>();
  const put: IndexedDoc[] = [];
  for (const doc of docs) {
    present.add(doc.id);
    const indexed = known.get(doc.id);
    if (indexed === doc.sha256) continue;
    put.push({ ...doc, text: text(doc) });
    if (indexed === undefined) counts.added++;
    else counts.updated++;
  }
  const remove = [...known.keys()].filter((id) => !present.has(id));
  counts.removed = remove.length;
  if (put.length > 0 || remove.length > 0) index.write(put, remove);
  return counts;
}
