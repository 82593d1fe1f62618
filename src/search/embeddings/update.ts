import pLimit from 'p-limit';
import type { Config } from '../../config/schema.js';
import type { LoadedVault } from '../../load/load.js';
import { searchDocuments, textReader, type SearchDoc } from '../documents.js';
import { createEmbedder, EmbeddingError, type EmbedderOptions } from './client.js';
import { openVectorStore } from './vectors.js';
import { counted } from '../../text/plural.js';

/**
 * The build's embedding step: every memory and summary whose content hash
 * has no vector yet is embedded, in batches of `batch_size` with at most
 * `concurrency` requests in flight, and its vector appended to the model's
 * store. A batch that fails after its retries leaves its documents to BM25
 * alone (the report says how many and why) and is tried again by the next
 * build; the build itself never fails for it.
 */

/** Characters of a document sent to the model: embedding models read a few thousand tokens at most. */
export const MAX_EMBED_CHARS = 8000;

export interface EmbeddingReport {
  model: string;
  /** Distinct content hashes in the vault. */
  documents: number;
  /** Embedded by this build. */
  embedded: number;
  /** Left without a vector by a failed request (BM25 only until the next build). */
  failed: number;
  /** Requests sent, retries included. */
  calls: number;
  ms: number;
  /** What went wrong, when something did. */
  message?: string;
}

/** The text embedded for a document: its title and body. */
export function embeddingText(doc: SearchDoc, body: string): string {
  return `${doc.title ? `${doc.title}\n\n` : ''}${body}`.slice(0, MAX_EMBED_CHARS);
}

/**
 * Embeds what is new. Undefined without an `embeddings` profile (nothing is
 * touched, no network).
 *
 * @example
 *   const report = await updateEmbeddings(root, config, loaded); // { embedded: 1, failed: 0, calls: 1, … }
 */
export async function updateEmbeddings(
  root: string,
  config: Config,
  vault: LoadedVault,
  options: EmbedderOptions = {},
): Promise<EmbeddingReport | undefined> {
  const profile = config.embeddings;
  if (!profile) return undefined;
  const started = performance.now();
  const report: EmbeddingReport = { model: profile.model, documents: 0, embedded: 0, failed: 0, calls: 0, ms: 0 };
  try {
    const store = openVectorStore(root, profile.model, profile.dimensions);
    const docs = searchDocuments(vault);
    const pending = new Map<string, SearchDoc>();
    const seen = new Set<string>();
    for (const doc of docs) {
      seen.add(doc.sha256);
      if (!store.has(doc.sha256) && !pending.has(doc.sha256)) pending.set(doc.sha256, doc);
    }
    report.documents = seen.size;
    if (pending.size === 0) return report;
    const embedder = createEmbedder(config, profile, options);
    const text = textReader(vault);
    const todo = [...pending.values()];
    const batches: SearchDoc[][] = [];
    for (let i = 0; i < todo.length; i += profile.batch_size) batches.push(todo.slice(i, i + profile.batch_size));
    await pLimit(profile.concurrency).map(batches, async (batch) => {
      try {
        const vectors = await embedder.embed(batch.map((doc) => embeddingText(doc, text(doc))));
        store.append(batch.map((doc, i) => ({ sha: doc.sha256, vector: vectors[i]! })));
        report.embedded += batch.length;
      } catch (error) {
        report.failed += batch.length;
        report.message ??= error instanceof EmbeddingError ? error.fault.message : String((error as Error).message ?? error);
      }
    });
    report.calls = embedder.calls;
  } catch (error) {
    // A bad profile (no key, not a URL) or an unwritable folder: reported, the build goes on with BM25.
    report.message ??= (error as Error).message;
    report.failed = report.documents - report.embedded;
  }
  report.ms = Math.round(performance.now() - started);
  if (report.failed > 0 && report.message)
    report.message = `${counted(report.failed, 'document')} left to BM25 only (tried again next build): ${report.message}`;
  return report;
}
