import type { LoadedVault } from '../load/load.js';
import type { Memory } from '../vault/model.js';

/**
 * What the search index holds per document: a memory (archive included) or a
 * generated summary, keyed by its vault-relative path and pinned by the
 * file's content hash. Memories that failed to parse are not in the loaded
 * vault, so they are never indexed.
 */
export interface SearchDoc {
  /** Vault-relative path; the document's id in the index. */
  id: string;
  stream: string;
  /** `memories` for a memory, else the summary's tier (`daily`, `weekly`, `monthly`, `longterm`, `waterfall-recent`, …). */
  tier: string;
  kind: string;
  tags: string[];
  title: string;
  /** First and last day the document is about (a memory: its day twice). */
  start: string;
  end: string;
  /** Day of a memory, period of a summary: what a hit names and what `memvault zoom` takes. */
  period: string;
  /** Memory date (ISO, with its offset) or summary end day: orders a group's hits. */
  date: string;
  sha256: string;
}

/** Every document of the loaded vault (those of `only`, when given), in path order. */
export function searchDocuments(loaded: LoadedVault, only?: ReadonlySet<string>): SearchDoc[] {
  const docs: SearchDoc[] = [];
  for (const stream of loaded.state.streams.values()) {
    for (const m of stream.memories) {
      if (only && !only.has(m.path)) continue;
      docs.push({
        id: m.path,
        stream: stream.name,
        tier: 'memories',
        kind: m.kind,
        tags: m.tags,
        title: m.title ?? '',
        start: m.day,
        end: m.day,
        period: m.day,
        date: m.date,
        sha256: m.sha256,
      });
    }
    for (const s of stream.summaries.values()) {
      if (only && !only.has(s.path)) continue;
      docs.push({
        id: s.path,
        stream: stream.name,
        tier: s.meta.tier,
        kind: 'summary',
        tags: [],
        title: '',
        start: s.meta.start,
        end: s.meta.end,
        period: s.meta.period,
        date: s.meta.end,
        sha256: s.sha256,
      });
    }
  }
  return docs.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Reads the text indexed for a document: the body of the memory or summary (from the parse cache's content pack when it has it). */
export function textReader(loaded: LoadedVault, only?: ReadonlySet<string>): (doc: SearchDoc) => string {
  const memories = new Map<string, Memory>();
  for (const stream of loaded.state.streams.values())
    for (const m of stream.memories) if (!only || only.has(m.path)) memories.set(m.path, m);
  return (doc) => {
    const memory = memories.get(doc.id);
    if (memory) return loaded.content.memory(memory).body;
    return loaded.content.summary(loaded.state.streams.get(doc.stream)!.summaries.get(doc.id)!).body;
  };
}
