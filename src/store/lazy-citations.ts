import type { Citation } from '../vault/citation-model.js';
import type { Memory } from '../vault/model.js';

/**
 * A memory's citations, read from the state store on first use. Most memories
 * cite something (20,000 memories cite ~200,000 things, most of them issue
 * numbers), yet a build looks at the citations of a few: the memories it
 * parsed, those citing a file that changed, the record lines it writes anew.
 * Kept in the parse-cache rows, they were read, parsed and kept on the heap by
 * every build (a third of the rows' bytes). A memory read from the parse cache
 * holds only their counts (cache-codec.ts); its `citations` property reads
 * them (`parse_citations`, cache.ts) the first time it is read, then is a
 * plain value. A parsed memory, or one from the committed record, holds them
 * as a plain array all along.
 */

/**
 * Reads the citations of the memories whose files have these SHA-256s (`paths`, theirs: for the error a missing row
 * gives), in one query: by hash.
 */
export type CitationsReader = (memories: readonly Pick<Memory, 'sha256' | 'path'>[]) => Map<string, Citation[]>;

/** Per memory whose citations are not read yet: how to read them. */
const readers = new WeakMap<object, CitationsReader>();
/** Per memory read from the parse cache: its citations once read (or written). */
const values = new WeakMap<object, Citation[] | undefined>();
/** Per memory read from the parse cache: how many citations it has, and how many verification checks (not issues). */
const storedCounts = new WeakMap<object, CitationCounts>();

/** A memory's citations, counted: all of them, and those verification checks (paths, commits, branches; not issues). */
export interface CitationCounts {
  all: number;
  checkable: number;
}

// The property stays this getter and setter once read, its value kept aside: making it a plain value then (a property
// redefined) turned the object into a slow dictionary, ~10 µs each for the thousands of memories citing a changed file.
function readLazily(this: Memory): Citation[] | undefined {
  if (readers.has(this)) readCitationsOf([this]);
  return values.get(this);
}

function writeOver(this: Memory, value: Citation[] | undefined): void {
  readers.delete(this);
  storedCounts.delete(this);
  values.set(this, value);
}

/**
 * Makes `memory.citations` read them with `read` on first use. One getter and setter for all memories (no closure
 * each); enumerable, so a copy of the memory (a spread, a worker's structured clone) has them.
 */
export function defineLazyCitations(memory: Memory, counts: CitationCounts, read: CitationsReader): void {
  readers.set(memory, read);
  storedCounts.set(memory, counts);
  Object.defineProperty(memory, 'citations', { get: readLazily, set: writeOver, configurable: true, enumerable: true });
}

/**
 * Reads the citations of those of `memories` not read yet, one query per store (what a stage that works out thousands
 * of memories asks first: a query each cost ~25 µs more a memory).
 */
export function readCitationsOf(memories: Iterable<Memory>): void {
  const byReader = new Map<CitationsReader, Memory[]>();
  for (const memory of memories) {
    const read = readers.get(memory);
    if (!read) continue;
    let list = byReader.get(read);
    if (!list) byReader.set(read, (list = []));
    list.push(memory);
  }
  for (const [read, list] of byReader) {
    const found = read(list);
    for (const memory of list) {
      values.set(memory, found.get(memory.sha256));
      readers.delete(memory);
    }
  }
}

/** Whether `memory.citations` is still unread (reading it would read the store). */
export function citationsUnread(memory: Memory): boolean {
  return readers.has(memory);
}

/** A memory's citations counted, without reading unread ones. */
export function citationCounts(memory: Memory): CitationCounts {
  const stored = storedCounts.get(memory);
  if (stored !== undefined) return stored;
  const citations = memory.citations ?? [];
  let checkable = 0;
  for (const c of citations) if (c.kind !== 'issue') checkable++;
  return { all: citations.length, checkable };
}

/** How many of a memory's citations verification checks (paths, commits, branches; not issues), without reading unread ones. */
export function checkableCitationCount(memory: Memory): number {
  const stored = storedCounts.get(memory);
  if (stored !== undefined) return stored.checkable;
  let checkable = 0;
  for (const c of memory.citations ?? []) if (c.kind !== 'issue') checkable++;
  return checkable;
}
