import type { Citation, CitationKind } from '../vault/citation-model.js';
import type { HeadingSpan } from '../vault/markdown.js';
import type { Diagnostic, Memory, Summary } from '../vault/model.js';
import { defineLazyLists, LIST_KEYS, listLength } from '../vault/lazy-lists.js';
import { type CitationsReader, citationCounts, citationsUnread, defineLazyCitations } from './lazy-citations.js';
import type { MemorySecret } from '../vault/secrets-check.js';

export { LIST_KEYS, listLength } from '../vault/lazy-lists.js';

/**
 * How parse-cache entries are stored in the `parse_files` rows: what the key
 * or the hash already say is left out, and a summary's two long lists
 * (`LIST_KEYS`) are kept in `parse_lists` instead. Every build reads every
 * row, so every byte of an entry costs reading and parsing time: at 20,000
 * memories the lists were 8.4 of 21 MB. A memory's citations are kept in
 * `parse_citations` too (row form 3; the row holds their counts): they were a
 * third of the rows' bytes, and a build reads a few memories' citations.
 */

/** What parsing a file gave, as the parse cache keeps it. */
export type CachedResult =
  /** `secrets`: what the secret detector found in the file (secrets-check.ts); the loader holds such a memory back. */
  | { type: 'memory'; memory: Memory; secrets?: MemorySecret[] }
  | { type: 'summary'; summary: Summary }
  | { type: 'invalid'; diagnostics: Diagnostic[] };

export interface CacheEntry {
  size: number;
  mtimeMs: number;
  sha256: string;
  result: CachedResult;
  /**
   * Top-level headings of the body as remark found them, once it was parsed
   * here or by the machine that wrote the committed record: enough to show
   * the body with its headings demoted without parsing it again.
   */
  headings?: HeadingSpan[];
}

/** A summary's lists as stored, with the path of the summary that stored them (for a person reading the table). */
export interface ListsRecord {
  path: string;
  lists: Record<string, unknown>;
}

/** An entry as stored on disk (see `encodeEntry`). */
export interface StoredEntry {
  size: number;
  mtimeMs: number;
  sha256: string;
  result: StoredResult;
  headings?: HeadingSpan[];
}

type StoredResult =
  | { type: 'memory'; memory: Omit<Memory, 'path' | 'stream' | 'sha256'>; secrets?: MemorySecret[] }
  | { type: 'summary'; summary: Omit<Summary, 'path' | 'sha256' | 'meta'> & { sha256?: string; meta: Record<string, unknown> } }
  | { type: 'invalid'; diagnostics: Diagnostic[] };

/** Reads the lists of the summary at `key` whose file has the SHA-256 `sha`. */
export type ListsReader = (key: string, sha: string) => Record<string, unknown>;

/**
 * A memory's entry as stored: one array, the fields in a fixed order, instead of an object with named keys. Nearly
 * every row is a memory, and every build reads every row: `JSON.parse` of 100,000 arrays takes about half the time of
 * the same entries as objects (a busy day, issue 29), and the rows are ~40 % smaller. `MEMORY_ROW` first names the form;
 * `rest` holds the memory's other fields (`duplicateOf`, `facts` …), 0 when it has none. The citations themselves are
 * in `parse_citations` (tuples, `StoredCitation`, by the file's SHA-256), read when first asked for (lazy-citations.ts);
 * the row has how many there are (`citations`, 0 when none) and how many verification checks (`checkable`: not
 * issues), which is what the citation step asks of every memory.
 */
export type StoredMemoryRow = [
  form: typeof MEMORY_ROW,
  size: number,
  mtimeMs: number,
  sha256: string,
  headings: HeadingSpan[] | 0,
  secrets: MemorySecret[] | 0,
  /** 0: the id its path gives (`idOfPath`), as most memories' (a frontmatter `id:` is the exception): 1 of 8 MB at 20,000. */
  id: string | 0,
  location: Memory['location'],
  date: string,
  day: string,
  minute: number,
  title: string | 0,
  kind: string,
  tags: string[],
  importance: Memory['importance'],
  rest: Record<string, unknown> | 0,
  citations: number,
  checkable: number,
];

/**
 * A citation as stored: kind, target and line as a tuple, the path citations' optional fields (line range, symbol,
 * quote) as a fourth element when there are any. A memory's citations were half of a 20,000-memory vault's rows as
 * objects (`{"kind":"issue","target":"#4234","line":13}`, 9.4 of 17.8 MB, most of them issue numbers), read and
 * parsed by every build; as tuples they are a third of that.
 */
export type StoredCitation =
  | [kind: StoredKind, target: string, line: number]
  | [kind: StoredKind, target: string, line: number, extra: Pick<Citation, 'lines' | 'symbol' | 'quote'>];

/** A citation's kind by its first letter (`p`ath, `c`ommit, `b`ranch, `i`ssue). */
type StoredKind = 'p' | 'c' | 'b' | 'i';

const KIND_OF_LETTER: Record<StoredKind, CitationKind> = { p: 'path', c: 'commit', b: 'branch', i: 'issue' };

/**
 * The first element of a `StoredMemoryRow`; another form of the row takes another number, and the cache's key names it
 * (cache.ts): a cache of another form starts empty. 3: citations in `parse_citations`, counted in the row (2: tuples in it).
 */
export const MEMORY_ROW = 3;

/** Memory fields a `StoredMemoryRow` holds in place, or that its key and hash give. */
const ROW_FIELDS = new Set([
  'path',
  'stream',
  'sha256',
  'id',
  'location',
  'date',
  'day',
  'minute',
  'title',
  'kind',
  'tags',
  'importance',
  'citations',
]);

export function encodeCitation(citation: Citation): StoredCitation {
  const { kind, target, line, ...extra } = citation;
  const letter = kind[0] as StoredKind;
  return extra.lines === undefined && extra.symbol === undefined && extra.quote === undefined
    ? [letter, target, line]
    : [letter, target, line, extra];
}

export function decodeCitation(stored: StoredCitation): Citation {
  const citation: Citation = { kind: KIND_OF_LETTER[stored[0]], target: stored[1], line: stored[2] };
  return stored.length === 4 ? Object.assign(citation, stored[3]) : citation;
}

/**
 * The id of a memory at vault path `key` without an `id:` in its frontmatter (vault/paths.ts `classifyPath`: the path
 * inside `memories/`, or inside the quarter's folder of `archive/`, without `.md`); undefined when the path has no such
 * place.
 */
function idOfPath(key: string, location: Memory['location']): string | undefined {
  const stream = key.indexOf('/');
  let start = stream + 1 + location.length + 1;
  if (stream < 0 || key.slice(stream + 1, start) !== `${location}/`) return undefined;
  if (location === 'archive') {
    const quarter = key.indexOf('/', start);
    if (quarter < 0) return undefined;
    start = quarter + 1;
  }
  return key.slice(start, /\.md$/i.test(key) ? key.length - 3 : key.length);
}

/**
 * What is stored for an entry at vault path `key`: the result without what its key and hash say, a summary's lists as
 * placeholders.
 */
export function encodeEntry(entry: CacheEntry, key: string): StoredEntry | StoredMemoryRow {
  const result = entry.result;
  let stored: StoredResult;
  if (result.type === 'memory') {
    const memory = result.memory;
    let rest: Record<string, unknown> | 0 = 0;
    for (const name of Object.keys(memory)) {
      // The row's own fields first: reading `citations` would read them from the store when not read yet.
      if (ROW_FIELDS.has(name)) continue;
      const value = (memory as unknown as Record<string, unknown>)[name];
      if (value === undefined) continue;
      rest ||= {};
      rest[name] = value;
    }
    const counts = citationCounts(memory);
    return [
      MEMORY_ROW,
      entry.size,
      entry.mtimeMs,
      entry.sha256,
      entry.headings ?? 0,
      result.secrets ?? 0,
      memory.id === idOfPath(key, memory.location) ? 0 : memory.id,
      memory.location,
      memory.date,
      memory.day,
      memory.minute,
      memory.title ?? 0,
      memory.kind,
      memory.tags,
      memory.importance,
      rest,
      counts.all,
      counts.checkable,
    ];
  } else if (result.type === 'summary') {
    const { path: _path, sha256, meta, ...summary } = result.summary;
    // Key by key, not a spread: a spread would read (and so load) lists not read yet.
    const storedMeta: Record<string, unknown> = {};
    for (const name of Object.keys(meta)) {
      const { get, value } = Object.getOwnPropertyDescriptor(meta, name) ?? {};
      if (!isListKey(name)) storedMeta[name] = value;
      else if (get !== undefined || value !== undefined) storedMeta[name] = listLength(meta, name);
    }
    stored = { type: 'summary', summary: { ...summary, meta: storedMeta, ...(sha256 === entry.sha256 ? {} : { sha256 }) } };
  } else stored = result;
  return {
    size: entry.size,
    mtimeMs: entry.mtimeMs,
    sha256: entry.sha256,
    result: stored,
    ...(entry.headings ? { headings: entry.headings } : {}),
  };
}

/** Restores what `encodeEntry` left out, in place: the stored objects are fresh from `JSON.parse` and used once. */
// The stored result is this program's own row (the store's schema version and the cache's key name its format), not
// input from outside: it is not checked field by field, which would cost a zod pass over 21,000 entries every build.
export function decodeEntry(
  key: string,
  stored: StoredEntry | StoredMemoryRow,
  readLists: ListsReader,
  readCitations: CitationsReader,
): CacheEntry {
  if (Array.isArray(stored)) return decodeMemoryRow(key, stored, readCitations);
  const entry = stored as unknown as CacheEntry;
  const result = entry.result;
  if (result.type === 'memory') {
    result.memory.path = key;
    result.memory.stream = key.slice(0, key.indexOf('/'));
    result.memory.sha256 = stored.sha256;
  } else if (result.type === 'summary') {
    result.summary.path = key;
    result.summary.sha256 ??= stored.sha256;
    const meta: object = result.summary.meta;
    if (LIST_KEYS.some((name) => typeof (meta as Record<string, unknown>)[name] === 'number'))
      defineLazyLists(result.summary.meta, () => readLists(key, stored.sha256));
  }
  return entry;
}

function decodeMemoryRow(key: string, row: StoredMemoryRow, readCitations: CitationsReader): CacheEntry {
  const [
    ,
    size,
    mtimeMs,
    sha256,
    headings,
    secrets,
    storedId,
    location,
    date,
    day,
    minute,
    title,
    kind,
    tags,
    importance,
    rest,
    all,
    checkable,
  ] = row;
  const id = storedId === 0 ? idOfPath(key, location)! : storedId;
  const stream = key.slice(0, key.indexOf('/'));
  // As the object form read back, a missing title is no key at all (not a `delete`, which slows every later read).
  const memory: Memory =
    title === 0
      ? ({ id, stream, path: key, location, date, day, minute, kind, tags, importance, sha256 } as Memory)
      : { id, stream, path: key, location, date, day, minute, title, kind, tags, importance, sha256 };
  if (rest !== 0) Object.assign(memory, rest);
  if (all > 0) defineLazyCitations(memory, { all, checkable }, readCitations);
  const entry: CacheEntry = { size, mtimeMs, sha256, result: { type: 'memory', memory, ...(secrets !== 0 ? { secrets } : {}) } };
  if (headings !== 0) entry.headings = headings;
  return entry;
}

/**
 * A memory's citations as `parse_citations` keeps them (JSON of `StoredCitation` tuples); undefined when it cites
 * nothing, or when they are not read yet (then the store has them already, under the same SHA-256).
 */
export function storedCitationsOf(result: CachedResult): string | undefined {
  if (result.type !== 'memory' || citationsUnread(result.memory)) return undefined;
  const citations = result.memory.citations;
  return citations && citations.length > 0 ? JSON.stringify(citations.map(encodeCitation)) : undefined;
}

/** The citations `storedCitationsOf` stored. */
export function decodeStoredCitations(text: string): Citation[] {
  return (JSON.parse(text) as StoredCitation[]).map(decodeCitation);
}

/** The lists of a summary's metadata (reading them if not read yet), to store; undefined when it has none. */
export function listsOf(meta: object): Record<string, unknown> | undefined {
  let lists: Record<string, unknown> | undefined;
  for (const name of LIST_KEYS) {
    const value = (meta as Record<string, unknown>)[name];
    if (value === undefined) continue;
    lists ??= {};
    lists[name] = value;
  }
  return lists;
}

function isListKey(name: string): name is (typeof LIST_KEYS)[number] {
  return (LIST_KEYS as readonly string[]).includes(name);
}
