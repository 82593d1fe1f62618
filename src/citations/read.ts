import path from 'node:path';
import type { MemoryCitations } from '../vault/citation-model.js';
import { openStateStore } from '../store/database.js';
import { staleNote } from './state.js';
import { type CitingMemory, type CitingMemoryReader, openCitationStore } from './store.js';

/**
 * What the read side (search, context, zoom, the MCP tools) knows of a
 * memory's citations: the last verification's result, read from the store
 * (no git, no vault load), and the rank a stale memory loses. A long-lived
 * process (the MCP server) rereads the store when a build wrote a new one.
 */

/** Rank kept by a memory whose citation is gone, moved, or heavily changed, unless the query names what it cites. */
export const STALE_RANK = { gone: 0.5, moved: 0.75, changed: 0.75 } as const;

export interface CitationLookup {
  /** The memory's citations as last checked, or undefined when it cites nothing (or was not checked yet). */
  get(memoryPath: string): MemoryCitations | undefined;
  /** The line a stale memory carries in the context (`cites \`src/a.ts\`, deleted in …`), or undefined. */
  note(memoryPath: string): string | undefined;
  /** The factor a memory's rank is multiplied by for `query`: 1, or less for a stale memory the query does not name. */
  rankFactor(memoryPath: string, query: string): number;
}

/**
 * Results read, by state folder: read again when the store's stamp changes (a build wrote new results) or its
 * connection is not the one they were read with (the file replaced, the store closed). Keyed by path: projects never mix.
 */
const opened = new Map<string, { stamp: string; db: unknown; memories: CitingMemoryReader | undefined }>();

/** The lookup for the project at `root`; undefined when no verification was recorded (no citations, no repository). */
export function citationLookup(root: string): CitationLookup | undefined {
  const stateDir = path.join(root, '.memvault');
  const store = openCitationStore(stateDir);
  const stamp = store.stamp();
  if (stamp === 'none') {
    opened.delete(stateDir);
    return undefined;
  }
  const { db } = openStateStore(stateDir);
  let entry = opened.get(stateDir);
  if (entry?.stamp !== stamp || entry.db !== db) {
    entry = { stamp, db, memories: store.readMemories() };
    opened.set(stateDir, entry);
  }
  return entry.memories ? lookupOf(entry.memories.get) : undefined;
}

/** A lookup over citing-memory records. */
export function lookupOf(record: (memoryPath: string) => CitingMemory | undefined): CitationLookup {
  const get = (memoryPath: string): MemoryCitations | undefined => {
    const found = record(memoryPath);
    if (!found) return undefined;
    const { state, stale, checked, citations } = found;
    return { state, stale, checked, citations };
  };
  return {
    get,
    note(memoryPath) {
      const checked = get(memoryPath);
      return checked?.stale ? staleNote(checked) : undefined;
    },
    rankFactor(memoryPath, query) {
      const checked = get(memoryPath);
      if (!checked?.stale) return 1;
      // Asking about the file itself (its path or its name) is asking about this memory: no loss.
      const asked = query.toLowerCase();
      const named = checked.citations.some((c) => {
        const target = c.target.toLowerCase().replace(/\/$/, '');
        const name = target.split('/').pop() ?? target;
        return asked.includes(target) || (name.length >= 4 && asked.includes(name));
      });
      if (named) return 1;
      const worst = checked.citations.find((c) => c.state === 'gone')
        ? 'gone'
        : checked.citations.find((c) => c.state === 'moved')
          ? 'moved'
          : 'changed';
      return STALE_RANK[worst];
    },
  };
}
