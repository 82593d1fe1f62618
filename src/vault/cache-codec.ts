import type { CacheEntry, PackRange } from './cache.js';
import type { Diagnostic, Memory, Summary } from './model.js';
import type { MemorySecret } from './secrets-check.js';
import type { HeadingSpan } from './markdown.js';

/**
 * How parse-cache entries are stored in `files.json` and `files.log`: what the
 * key or the hash already say is left out, and a summary's two long lists
 * (`LIST_KEYS`) are kept in `content.pack` instead. `files.json` is read by
 * every build, so every byte of an entry costs reading and parsing time: at
 * 20,000 memories the lists were 8.4 of its 21 MB, escaped JSON in JSON.
 */

/**
 * A daily's source list and dropped items are most of its entry (~10 KB of
 * 11), yet a build reads them only for the few summaries it works on. In the
 * entry they are their length (keeping the key's place among the metadata; the
 * index lists every summary's number of sources, `listLength`); on load they
 * become properties that read the pack the first time one is read.
 */
export const LIST_KEYS = ['sources', 'dropped'] as const;

/** A summary's lists as a pack record; `path` lets a reader check that the record is the one it asked for. */
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
  content?: PackRange;
  lists?: PackRange;
  headings?: HeadingSpan[];
}

type StoredResult =
  | { type: 'memory'; memory: Omit<Memory, 'path' | 'stream' | 'sha256'>; secrets?: MemorySecret[] }
  | { type: 'summary'; summary: Omit<Summary, 'path' | 'sha256' | 'meta'> & { sha256?: string; meta: Record<string, unknown> } }
  | { type: 'invalid'; diagnostics: Diagnostic[] };

/** Reads the lists record at `range` for the summary at `key`. */
export type ListsReader = (key: string, range: PackRange) => Record<string, unknown>;

/** What is stored for an entry: the result without what its key and hash say, a summary's lists as placeholders. */
export function encodeEntry(entry: CacheEntry): StoredEntry {
  const result = entry.result;
  let stored: StoredResult;
  if (result.type === 'memory') {
    const { path: _path, stream: _stream, sha256: _sha, ...memory } = result.memory;
    stored = { type: 'memory', memory, ...(result.secrets ? { secrets: result.secrets } : {}) };
  } else if (result.type === 'summary') {
    const { path: _path, sha256, meta, ...summary } = result.summary;
    // Key by key, not a spread: a spread would read (and so load) lists still in the pack.
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
    ...(entry.content ? { content: entry.content } : {}),
    ...(entry.lists ? { lists: entry.lists } : {}),
    ...(entry.headings ? { headings: entry.headings } : {}),
  };
}

/** Restores what `encodeEntry` left out, in place: the stored objects are fresh from `JSON.parse` and used once. */
export function decodeEntry(key: string, stored: StoredEntry, readLists: ListsReader): CacheEntry {
  const entry = stored as unknown as CacheEntry;
  const result = entry.result;
  if (result.type === 'memory') {
    result.memory.path = key;
    result.memory.stream = key.slice(0, key.indexOf('/'));
    result.memory.sha256 = stored.sha256;
  } else if (result.type === 'summary') {
    result.summary.path = key;
    result.summary.sha256 ??= stored.sha256;
    const range = stored.lists;
    if (range) defineLazyLists(result.summary.meta, () => readLists(key, range));
  }
  return entry;
}

/** The lists of a summary's metadata (reading them if still in the pack), for a new pack record; undefined when it has none. */
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

/** Lengths of the lists of metadata whose lists are still in the pack. */
const lazyLengths = new WeakMap<object, Record<string, number>>();

/** The length of a list of a summary's metadata, read from the pack only if its length was not stored. */
export function listLength(meta: object, name: (typeof LIST_KEYS)[number]): number {
  const { get, value } = Object.getOwnPropertyDescriptor(meta, name) ?? {};
  const length = get ? lazyLengths.get(meta)?.[name] : undefined;
  return length ?? (Array.isArray(value) ? value.length : ((meta as Record<string, unknown[] | undefined>)[name]?.length ?? 0));
}

/** True when some list of `meta` is still a lazy property (not read from the pack yet). */
export function hasLazyLists(meta: object): boolean {
  return LIST_KEYS.some((name) => Object.getOwnPropertyDescriptor(meta, name)?.get !== undefined);
}

/** Turns the list keys of `meta` (placeholders) into properties that read all lists at the first read of one, then are plain values. */
function defineLazyLists(meta: object, read: () => Record<string, unknown>): void {
  const present = LIST_KEYS.filter((name) => Object.hasOwn(meta, name));
  const lengths: Record<string, number> = {};
  for (const name of present) lengths[name] = (meta as Record<string, number>)[name]!;
  lazyLengths.set(meta, lengths);
  const settle = (values: Record<string, unknown>): void => {
    for (const name of present)
      Object.defineProperty(meta, name, { value: values[name], configurable: true, enumerable: true, writable: true });
  };
  for (const name of present) {
    Object.defineProperty(meta, name, {
      configurable: true,
      enumerable: true,
      get() {
        settle(read());
        return (meta as Record<string, unknown>)[name];
      },
      set(value: unknown) {
        // A write before any read: the other lists still come from the pack.
        const values = read();
        values[name] = value;
        settle(values);
      },
    });
  }
}

function isListKey(name: string): name is (typeof LIST_KEYS)[number] {
  return (LIST_KEYS as readonly string[]).includes(name);
}

/**
 * JSON with every non-ASCII character escaped: the file then decodes as
 * Latin-1, byte for byte, which is several times faster than UTF-8 decoding
 * of a large file with a few accented names in it.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
