import type { Config } from '../../config/schema.js';
import type { LoadedVault } from '../../vault/load.js';
import type { EmbedderOptions } from '../embeddings/client.js';
import { hasSearchIndex, updateSearchIndex, type IndexReport } from './store.js';

/**
 * What a build does for the read side: the BM25 index follows the vault by
 * content hash (store.ts) and, with an `embeddings` profile, new content
 * hashes are embedded (embeddings/update.ts; a failure is reported in
 * `embeddings.message`, never thrown). A fresh clone without an index gets
 * none here (its first search builds it) unless embeddings are configured.
 * Offline it touches no network and loads no SDK. Undefined when nothing
 * was done.
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
  const report = updateSearchIndex(root, vault);
  if (!config.embeddings) return report;
  const embeddings = await (await import('../embeddings/update.js')).updateEmbeddings(root, config, vault, options);
  return embeddings ? { ...report, embeddings } : report;
}
