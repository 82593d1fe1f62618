import { randomUUID } from 'node:crypto';
import { openStateStore, type StateStore } from '../store/database.js';
import { kvTable, zodDecode } from '../store/kv.js';
import { CITED_BY_META, type CitedByIndex, type CitedEntry, decodeCitedByMeta, readCitedBy } from './cited-by.js';
import { citationsAt } from './state.js';
import { type CitingMemory, storedMemorySchema, type Verification, type VerificationFacts, verificationFactsSchema } from './schema.js';
import { decodeShardTargets, type ShardTargets } from './targets.js';

export type { CitedByIndex, CitedEntry } from './cited-by.js';
export {
  type CitingMemory,
  type PathFacts,
  type QuoteFinding,
  STORE_VERSION,
  type Verification,
  type VerificationFacts,
} from './schema.js';

/**
 * Where verification's results live between builds, behind a small interface
 * (`CitationStore`): tables of the project's state store
 * (`.memvault/state.sqlite`, src/store/), outside git like every cache
 * (derived: losing them costs one full check):
 * - `kv` row `citations/verification`: the repository facts per cited path,
 *   commit and branch, the commit they were checked at (small: what a build and
 *   a reader read), checked with zod when read;
 * - `citation_notes`: one row per stale memory, its note; a build reads them
 *   all and writes those that changed (in the verification row until store
 *   version 3, they made it 3 MB with thousands of memories stale);
 * - `citing_memories`: each citing memory's record, one row per memory (vault
 *   path) with the content hash it was made from: search, context and zoom
 *   read the rows of their hits only, without loading the vault; a build
 *   writes only the rows whose memory changed;
 * - `cited_by`: per cited path, the memories citing it, as the pre-tool hook
 *   shows them (read by cited-by.ts, the hook's side); `kv` row
 *   `citations/cited-by` names the repository and the vault folder;
 * - `kv` row `citations/stamp`: changes with every write of the results, so a
 *   long-lived reader (the MCP server) knows when to read again;
 * - `kv` row `citation-shards/<parser version>`: what each group of citing memories
 *   cites, with the group's fingerprint (targets.ts): a memo, whatever check
 *   it was made by.
 * Until schema 2 these were JSON files under `.memvault/citations/`; the
 * state store removes that folder (store/legacy.ts) and the next build checks
 * everything once.
 */

/** Memories with citations, by vault path: each one's result at the last check. */
export type CitingMemories = Record<string, CitingMemory>;

/** The citing memories of the last check, each validated when first asked for. */
export interface CitingMemoryReader {
  get(memoryPath: string): CitingMemory | undefined;
  /** Every one (all validated). */
  all(): CitingMemories;
}

export interface CitationStore {
  /** The last verification, or undefined when there is none (or it is unreadable or of another version). */
  readVerification(): Verification | undefined;
  /**
   * Writes the facts, the stale memories' notes and, unless undefined (the same citing memories as the verification
   * stored, by their fingerprint), the memories' records, only the rows whose memory changed; in one transaction.
   * `before`: the verification the store holds (as `readVerification` gave it): only the notes that differ from its are
   * written; without it, all of them.
   */
  writeVerification(verification: Verification, memories: CitingMemories | undefined, before?: Verification): void;
  /** The memories' results, or undefined when there are none; what search, context and zoom read (no facts, no zod over all of it). */
  readMemories(): CitingMemoryReader | undefined;
  /**
   * The memories citing each of the paths `pathsOf(repo)` gives (repository-relative; folders end with `/`), from the
   * last build; undefined when there is no index.
   */
  readCitedBy(pathsOf: (repo: string) => readonly string[]): { repo: string; vault: string; found: Map<string, CitedEntry[]> } | undefined;
  writeCitedBy(index: CitedByIndex): void;
  /**
   * Replaces the rows of the memories `replaces` names (vault paths) by `memories` (every citing memory among them now;
   * a named memory not in it is removed), keeping every other row; returns what each replaced row cited and its
   * memory's content hash, by memory path. What a build that worked out a few memories again writes, not all of them.
   * `kept`, when the caller knows it: how many rows the store holds outside the named ones (the citing memories of the
   * groups whose fingerprint did not move). When the table's row count says the named rows are those of `memories`
   * only (no memory named was deleted or stopped citing), the rows are not walked.
   */
  replaceMemories(replaces: (memoryPath: string) => boolean, memories: CitingMemories, kept?: number): Map<string, ReplacedMemory>;
  /**
   * For each path of `index.files`: drops the entries of the memories `replacing(path)` names (`all`: every entry, the
   * row not even read), adds the given ones (a path left with none is removed); every other path keeps its row. What a
   * check that re-worked a few memories writes, without reading (and checking) the thousands of entries it keeps.
   */
  updateCitedBy(index: CitedByIndex, replacing: (path: string) => ReadonlySet<string> | 'all'): void;
  /** Runs `work` in one transaction (the writes above nest in it): a partial write's rows, entries and facts land together. */
  transaction<T>(work: () => T): T;
  /**
   * What each group of citing memories cited when last counted by the parser `version` (targets.ts), by group: a group's
   * fingerprint is its memories' content, and another parser may find other citations in the same content.
   */
  readShardTargets(version: string): Map<string, ShardTargets>;
  /** Writes what every group there is now cites (`groups`), in place of the stored groups of any version. */
  writeShardTargets(version: string, groups: ReadonlyMap<string, ShardTargets>): void;
  /** Changes whenever a verification is written: long-lived readers read the results again on a new stamp. */
  stamp(): string;
  /** Forgets every result (the next build checks everything again). */
  clear(): void;
}

/**
 * A memory row `replaceMemories` replaced: what it cited (not read when the memory's content hash is the row's: an
 * unchanged memory cites what it cited), and its memory's content hash (when the row was made from one).
 */
export interface ReplacedMemory {
  cites?: [string, string][];
  sha?: string;
}

const NO_STAMP = 'none';

/** Bump when a memory record's shape changes: every row is then written again (a row is kept while its `sha` matches). */
const RECORD_FORMAT = 1;

/**
 * The store in the state store of a project's state folder (`<root>/.memvault`), opened on first use.
 *
 * @example
 *   const store = openCitationStore(path.join(root, '.memvault'));
 *   const memories = store.readMemories();
 *   memories?.get('main/memories/2026/01/2026-01-02-retry.md')?.stale;
 */
export function openCitationStore(stateDir: string): CitationStore {
  // Opened when first used (openStateStore hands back the process's open connection, or opens a replaced file anew).
  const state = (): StateStore => openStateStore(stateDir);
  const kv = () => citationTables(state());
  return {
    readVerification() {
      const facts = kv().verification.get('verification');
      return facts ? withNotes(state(), facts) : undefined;
    },
    writeVerification(verification, memories, before) {
      const store = state();
      const tables = kv();
      store.transaction(() => {
        if (memories !== undefined) writeMemories(store, memories);
        const { stale: _stale, notes: _notes, ...facts } = verification;
        tables.verification.set('verification', facts);
        writeNotes(store, verification, before);
        tables.text.set('stamp', randomUUID());
      });
    },
    readMemories() {
      const facts = kv().verification.get('verification');
      return facts ? memoryReader(state(), facts) : undefined;
    },
    readCitedBy(pathsOf) {
      return readCitedBy(state().db, pathsOf);
    },
    writeCitedBy(index) {
      writeCitedByRows(state(), index);
    },
    replaceMemories(replaces, memories, kept) {
      return replaceMemoryRows(state(), replaces, memories, kept);
    },
    updateCitedBy(index, replacing) {
      updateCitedByRows(state(), index, replacing);
    },
    readShardTargets(version) {
      return new Map(Object.entries(kv().shards.get(version) ?? {}));
    },
    writeShardTargets(version, groups) {
      const { shards } = kv();
      state().transaction(() => {
        shards.clear();
        shards.set(version, Object.fromEntries([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
      });
    },
    transaction(work) {
      return state().transaction(work);
    },
    stamp() {
      try {
        return kv().text.get('stamp') ?? NO_STAMP;
      } catch {
        return NO_STAMP;
      }
    },
    clear() {
      const store = state();
      store.transaction(() => {
        store.db.prepare('DELETE FROM citing_memories').run();
        store.db.prepare('DELETE FROM cited_by').run();
        store.db.prepare('DELETE FROM citation_notes').run();
        kv().text.clear();
        kv().shards.clear();
      });
    },
  };
}

/** The store's `kv` rows: the verification (checked with zod), the stamp, and the cited-by index's repository and vault. */
function citationTables(store: StateStore) {
  return {
    verification: kvTable(store, 'citations', zodDecode(verificationFactsSchema)),
    text: kvTable(store, 'citations', (raw) => (typeof raw === 'string' ? raw : undefined)),
    meta: kvTable(store, CITED_BY_META.store, decodeCitedByMeta),
    shards: kvTable(store, 'citation-shards', decodeShardTargets),
  };
}

/**
 * A verification's facts with its stale memories and their notes, from `citation_notes` (one row per stale memory: its
 * note, or '' for one without). Rows of their own, not a list in the facts' row: with thousands of memories stale, that
 * row was 3 MB of JSON read through zod and written whole by every build.
 */
function withNotes(store: StateStore, facts: VerificationFacts): Verification {
  // `all()`, not `iterate()`: one call for 18,000 rows cost a third of iterating them one by one.
  const rows = store.db.prepare('SELECT memory, note FROM citation_notes').raw().all() as [unknown, unknown][];
  const stale: string[] = [];
  const notes: Record<string, string> = {};
  for (const [memory, note] of rows) {
    if (typeof memory !== 'string' || typeof note !== 'string') continue;
    stale.push(memory);
    if (note !== '') notes[memory] = note;
  }
  return Object.assign(facts, { stale, notes });
}

/** The stale memories' note rows of `verification`: those that differ from `before`'s (all without it), the others removed. */
function writeNotes(store: StateStore, verification: Verification, before: Verification | undefined): void {
  const { db } = store;
  const was = new Map<string, string>();
  if (before) for (const memory of before.stale) was.set(memory, before.notes?.[memory] ?? '');
  else db.prepare('DELETE FROM citation_notes').run();
  const upsert = db.prepare(
    'INSERT INTO citation_notes (memory, note) VALUES (?, ?) ON CONFLICT (memory) DO UPDATE SET note = excluded.note',
  );
  for (const memory of verification.stale) {
    const note = verification.notes?.[memory] ?? '';
    if (was.get(memory) !== note) upsert.run(memory, note);
    was.delete(memory);
  }
  const remove = db.prepare('DELETE FROM citation_notes WHERE memory = ?');
  for (const memory of was.keys()) remove.run(memory);
}

/** The memories' rows of `verification`'s check, each read and validated when first asked for (then kept). */
function memoryReader(store: StateStore, verification: VerificationFacts): CitingMemoryReader {
  const { db } = store;
  const select = db.prepare('SELECT record FROM citing_memories WHERE path = ?');
  const validated = new Map<string, CitingMemory | undefined>();
  const get = (memoryPath: string): CitingMemory | undefined => {
    if (!validated.has(memoryPath)) {
      const row = select.get(memoryPath) as { record: string } | undefined;
      validated.set(memoryPath, decodeMemoryRecord(verification, memoryPath, row?.record));
    }
    return validated.get(memoryPath);
  };
  return {
    get,
    all() {
      const out: CitingMemories = {};
      for (const row of db.prepare('SELECT path, record FROM citing_memories ORDER BY path').iterate() as IterableIterator<{
        path: string;
        record: string;
      }>) {
        if (!validated.has(row.path)) validated.set(row.path, decodeMemoryRecord(verification, row.path, row.record));
        const memory = validated.get(row.path);
        if (memory) out[row.path] = memory;
      }
      return out;
    },
  };
}

/** A memory row's record with its citations' states at `verification`; undefined when missing or not decodable. */
function decodeMemoryRecord(verification: VerificationFacts, memoryPath: string, text: string | undefined): CitingMemory | undefined {
  const raw = text === undefined ? undefined : parseJson(text);
  const parsed = raw === undefined ? undefined : storedMemorySchema.safeParse(raw);
  if (!parsed?.success) return undefined;
  const { cites, ...rest } = parsed.data;
  const checked = citationsAt(
    cites.map(([kind, target]) => ({ kind, target })),
    rest.at,
    verification,
    verification.quoted?.[memoryPath],
  );
  return checked ? ({ ...rest, ...checked } as CitingMemory) : undefined;
}

/** `CitationStore.writeCitedBy`: the whole index, in one transaction. */
function writeCitedByRows(store: StateStore, index: CitedByIndex): void {
  const meta = citationTables(store).meta;
  store.transaction(() => {
    // Only the rows whose memories changed are written: most paths keep their citing memories from build to build.
    const known = new Map(store.db.prepare('SELECT path, entries FROM cited_by').raw().all() as [string, string][]);
    const upsert = store.db.prepare(
      'INSERT INTO cited_by (path, entries) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET entries = excluded.entries',
    );
    for (const [cited, entries] of Object.entries(index.files)) {
      const text = JSON.stringify(entries);
      if (known.get(cited) !== text) upsert.run(cited, text);
      known.delete(cited);
    }
    const remove = store.db.prepare('DELETE FROM cited_by WHERE path = ?');
    for (const gone of known.keys()) remove.run(gone);
    meta.set(CITED_BY_META.key, { repo: index.repo, vault: index.vault });
  });
}

/** `CitationStore.replaceMemories`: the named memories' rows replaced, in one transaction; what each replaced row said. */
function replaceMemoryRows(
  store: StateStore,
  replaces: (memoryPath: string) => boolean,
  memories: CitingMemories,
  kept: number | undefined,
): Map<string, ReplacedMemory> {
  return store.transaction(() => {
    const { db } = store;
    const replaced = new Map<string, ReplacedMemory>();
    const known = new Map<string, string>();
    const selectRecord = db.prepare('SELECT record FROM citing_memories WHERE path = ?').pluck();
    for (const [memoryPath, stored] of namedRows(db, replaces, memories, kept)) {
      const sha = stored.startsWith(`${RECORD_FORMAT}:`) ? stored.slice(`${RECORD_FORMAT}:`.length) : undefined;
      known.set(memoryPath, stored);
      // The same memory as before (same content hash): what it cited is not asked for, so its record is not read. A commit
      // that changes a file thousands of memories cite works out all of them again, and reading back every record cost a
      // third of the step.
      if (sha !== undefined && memories[memoryPath]?.sha === sha) {
        replaced.set(memoryPath, { sha });
        continue;
      }
      const parsed = storedMemorySchema.safeParse(parseJson(selectRecord.get(memoryPath) as string));
      // A row that does not decode is replaced all the same, as one that cited nothing.
      replaced.set(memoryPath, { cites: parsed.success ? parsed.data.cites : [], ...(sha ? { sha } : {}) });
    }
    // Only the named rows are known here: those are the ones removed when not in `memories`.
    writeMemoryRows(db, memories, known);
    return replaced;
  });
}

/**
 * The rows (path, `sha`) of the memories `replaces` names, in the table's order. Those of `memories` looked up by key
 * when the row count says there is no other (`kept` rows outside the named ones, and these): an edit's case, ~20 ms
 * less than walking 20,000 rows. Otherwise every row's path is walked (a named memory was deleted or stopped citing).
 */
function namedRows(
  db: StateStore['db'],
  replaces: (memoryPath: string) => boolean,
  memories: CitingMemories,
  kept: number | undefined,
): [string, string][] {
  if (kept !== undefined) {
    const named = JSON.stringify(Object.keys(memories).filter(replaces));
    const rows = db
      .prepare('SELECT path, sha FROM citing_memories WHERE path IN (SELECT value FROM json_each(?)) ORDER BY path')
      .raw()
      .all(named) as [string, string][];
    const count = db.prepare('SELECT count(*) FROM citing_memories').pluck().get() as number;
    if (count === kept + rows.length) return rows;
  }
  // Every row's path (the table is keyed by path, so this walks all rows: the named ones are a few of thousands), then
  // the named rows' hashes by key: one string per row, not an object of two (half the walk's time at 20,000).
  const selectSha = db.prepare('SELECT sha FROM citing_memories WHERE path = ?').pluck();
  const rows: [string, string][] = [];
  for (const memoryPath of db.prepare('SELECT path FROM citing_memories').pluck().all() as string[])
    if (replaces(memoryPath)) rows.push([memoryPath, selectSha.get(memoryPath) as string]);
  return rows;
}

/** `CitationStore.updateCitedBy`: the given paths' entries patched, in one transaction; every other path kept. */
function updateCitedByRows(store: StateStore, index: CitedByIndex, replacing: (path: string) => ReadonlySet<string> | 'all'): void {
  const meta = citationTables(store).meta;
  store.transaction(() => {
    const { db } = store;
    const select = db.prepare('SELECT entries FROM cited_by WHERE path = ?');
    const upsert = db.prepare(
      'INSERT INTO cited_by (path, entries) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET entries = excluded.entries',
    );
    const remove = db.prepare('DELETE FROM cited_by WHERE path = ?');
    for (const [cited, entries] of Object.entries(index.files)) {
      const gone = replacing(cited);
      const row = gone === 'all' ? undefined : (select.get(cited) as { entries: string } | undefined);
      const stored = row ? parseJson(row.entries) : undefined;
      // The kept entries as they are in the row (written by a build; the hook checks what it reads).
      const kept = gone !== 'all' && Array.isArray(stored) ? (stored as { m?: unknown }[]).filter((e) => !gone.has(String(e?.m))) : [];
      const merged = [...kept, ...entries];
      if (merged.length > 0) upsert.run(cited, JSON.stringify(merged));
      else remove.run(cited);
    }
    meta.set(CITED_BY_META.key, { repo: index.repo, vault: index.vault });
  });
}

/** The memories' records: rows written only for memories whose content (or record format) changed, others removed. */
function writeMemories(store: StateStore, memories: CitingMemories): void {
  const { db } = store;
  writeMemoryRows(db, memories, new Map(db.prepare('SELECT path, sha FROM citing_memories').raw().all() as [string, string][]));
}

/**
 * Writes the rows of `memories` whose fingerprint differs from `known`'s (path → the row's `sha` column), and removes
 * the rows of the paths of `known` that are not in `memories`.
 */
function writeMemoryRows(db: StateStore['db'], memories: CitingMemories, known: Map<string, string>): void {
  const upsert = db.prepare(
    'INSERT INTO citing_memories (path, sha, record) VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET sha = excluded.sha, record = excluded.record',
  );
  for (const [key, m] of Object.entries(memories)) {
    // An unchanged memory (same content hash) is not even serialised: at 20,000 memories, serialising them all was a
    // quarter of an edit + commit's citation step.
    if (m.sha !== undefined && known.get(key) === `${RECORD_FORMAT}:${m.sha}`) {
      known.delete(key);
      continue;
    }
    const record = {
      id: m.id,
      stream: m.stream,
      day: m.day,
      kind: m.kind,
      ...(m.title !== undefined ? { title: m.title } : {}),
      at: m.at,
      cites: m.citations.filter((c) => c.kind !== 'issue').map((c) => [c.kind, c.target]),
    };
    // Without the memory's hash (a caller that has none), the record's text is its own fingerprint.
    const text = JSON.stringify(record);
    const sha = `${RECORD_FORMAT}:${m.sha ?? text}`;
    if (known.get(key) !== sha) upsert.run(key, sha, text);
    known.delete(key);
  }
  const remove = db.prepare('DELETE FROM citing_memories WHERE path = ?');
  for (const gone of known.keys()) remove.run(gone);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
