import MiniSearch, { type Options, type SearchResult } from 'minisearch';
import { stemmer } from 'stemmer';
import { contentWords } from '../../text/terms.js';
import type { SearchDoc } from './documents.js';

/**
 * The BM25 index (minisearch) over memories and summaries. Words are the
 * project's content words (src/text/terms.ts: lowercased, stop words out),
 * stemmed with Porter's stemmer so `deploys` finds `deploying`. Pure: the
 * store (store.ts) persists it, `syncIndex` updates it by content hash.
 */

/** Bump when tokenizing, stemming or the stored fields change: an index on disk with another version is rebuilt. */
export const ANALYZER_VERSION = 1;

/** A document as minisearch sees it: the metadata plus its text (not stored). */
export type IndexedDoc = SearchDoc & { text: string };

/**
 * Stored with each document and returned with its hits. Tags are stored as
 * `tagList`: minisearch stores what `extractField` gives, and that joins `tags` into words.
 */
export const STORED_FIELDS = ['id', 'stream', 'tier', 'kind', 'tagList', 'title', 'start', 'end', 'period', 'date', 'sha256'];

/** Stemmed form of one word; also how a snippet recognises the words a hit matched. */
export function processTerm(term: string): string {
  return stemmer(term.toLowerCase());
}

/** Words of a text as the index sees them (before stemming). */
export function tokenize(text: string): string[] {
  return contentWords(text);
}

export const INDEX_OPTIONS: Options<IndexedDoc> = {
  fields: ['title', 'text', 'tags'],
  storeFields: STORED_FIELDS,
  tokenize,
  processTerm,
  extractField: (doc, field) => {
    if (field === 'tags') return doc.tags.join(' ');
    if (field === 'tagList') return doc.tags as unknown as string;
    return (doc as unknown as Record<string, string>)[field]!;
  },
  searchOptions: {
    boost: { title: 2, tags: 1.5 },
    // Prefix from four letters (`auth` finds `authentication`), typos from six (one edit in five letters).
    prefix: (term) => term.length >= 4,
    fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
  },
};

export type SearchIndex = MiniSearch<IndexedDoc>;

export function createIndex(): SearchIndex {
  return new MiniSearch<IndexedDoc>(INDEX_OPTIONS);
}

/** One change to the index, as the store's log records it. */
export type IndexChange = { op: 'put'; doc: IndexedDoc } | { op: 'del'; id: string };

/** Replays a logged change onto an index read from its snapshot. */
export function applyChange(index: SearchIndex, known: Map<string, string>, change: IndexChange): void {
  if (change.op === 'del') {
    if (known.delete(change.id)) index.discard(change.id);
    return;
  }
  if (known.has(change.doc.id)) index.replace(change.doc);
  else index.add(change.doc);
  known.set(change.doc.id, change.doc.sha256);
}

export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
}

/**
 * Brings `index` in line with `docs`: a document whose content hash is
 * unchanged is not touched; a new one is added, a changed one replaced, a
 * gone one discarded. `known` (path → hash of what is indexed) is updated in
 * place. Only changed documents' text is read.
 */
export function syncIndex(
  index: SearchIndex,
  known: Map<string, string>,
  docs: readonly SearchDoc[],
  text: (doc: SearchDoc) => string,
  record?: (change: IndexChange) => void,
): SyncCounts {
  const counts: SyncCounts = { added: 0, updated: 0, removed: 0 };
  const present = new Set<string>();
  for (const doc of docs) {
    present.add(doc.id);
    const indexed = known.get(doc.id);
    if (indexed === doc.sha256) continue;
    const full = { ...doc, text: text(doc) };
    record?.({ op: 'put', doc: full });
    if (indexed === undefined) {
      index.add(full);
      counts.added++;
    } else {
      index.replace(full);
      counts.updated++;
    }
    known.set(doc.id, doc.sha256);
  }
  for (const id of [...known.keys()]) {
    if (present.has(id)) continue;
    index.discard(id);
    known.delete(id);
    record?.({ op: 'del', id });
    counts.removed++;
  }
  return counts;
}

export type { SearchResult };
