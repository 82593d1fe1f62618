import type { Config } from '../config/schema.js';
import { diagnostic } from '../messages/diagnostic.js';
import type { Diagnostic } from '../messages/message.js';
import type { LoadedVault } from '../load/load.js';
import type { EmbedderOptions } from './embeddings/client.js';
import { hasSearchIndex, updateSearchIndex, type IndexReport } from './store.js';
import { counted } from '../text/plural.js';

/**
 * What a build does for the read side: the BM25 index follows the vault by
 * content hash (store.ts) and, with an `embeddings` profile, new content
 * hashes are embedded (embeddings/update.ts; a failure is reported in
 * `embeddings.message`, never thrown). A fresh clone without an index gets
 * none here (its first search builds it) unless embeddings are configured.
 * Offline it touches no network and loads no SDK. Undefined when nothing
 * was done. The index never fails the build: a damaged or foreign file is
 * rebuilt (store.ts), and one that cannot be written at all is reported in
 * `error` (the first search indexes the vault in memory).
 *
 * @example
 *   report.search = await syncSearch(root, loaded, config); // { updated: 1, …, embeddings: { embedded: 1, … } }
 */
export async function syncSearch(
  root: string,
  vault: LoadedVault,
  config: Config,
  options: EmbedderOptions = {},
): Promise<IndexReport | undefined> {
  if (!config.embeddings && !hasSearchIndex(root)) return undefined;
  const started = performance.now();
  let report: IndexReport;
  try {
    report = updateSearchIndex(root, vault);
  } catch (error) {
    // SQLite's or the file system's (a full disk, a folder it may not write): the index waits, the build goes on.
    if (typeof (error as { code?: unknown } | null)?.code !== 'string') throw error;
    const ms = Math.round(performance.now() - started);
    report = { documents: 0, added: 0, updated: 0, removed: 0, rebuilt: false, written: false, ms, error: (error as Error).message };
  }
  if (!config.embeddings) return report;
  const embeddings = await (await import('./embeddings/update.js')).updateEmbeddings(root, config, vault, options);
  return embeddings ? { ...report, embeddings } : report;
}

/** Where the build's notes about the index point. */
const INDEX_FILE = '.memvault/search/index.sqlite';

/**
 * What the build says about its search index, once: that a damaged or foreign file was rebuilt from the vault (info),
 * or that it could not be written (warning). Nothing for an ordinary update, nor for an index of an older version.
 */
export function searchNotes(report: IndexReport | undefined): Diagnostic[] {
  const place = { path: INDEX_FILE, line: 1, column: 1 };
  if (report?.error !== undefined)
    return [diagnostic('search/unwritable', place, `the search index could not be updated: ${report.error}`)];
  if (report?.reason === 'unreadable' || report?.reason === 'foreign') {
    const why = report.reason === 'foreign' ? 'the file was another SQLite database' : 'the old file was damaged or unreadable';
    return [
      diagnostic('search/rebuilt', place, `search index rebuilt from the vault (${counted(report.documents, 'document')})`, {
        facts: { why },
      }),
    ];
  }
  return [];
}
