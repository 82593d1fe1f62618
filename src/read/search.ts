import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { Embedder, EmbedderOptions } from '../search/embeddings/client.js';
import type { VectorStore } from '../search/embeddings/vectors.js';
import { loadValidConfigCached } from '../config/cached.js';
import { citationBoost, withCitations } from './search-citations.js';
import { citationLookup } from '../citations/read.js';
import { nearest } from '../search/fuse.js';
import { parseQuery, runSearch, type SearchGroup, type SearchOptions } from '../search/query.js';
import {
  closeIndex,
  ensureSearchIndex,
  isIndexDamage,
  readIndex,
  type IndexReport,
  type EnsureOptions,
  type LoadedIndex,
} from '../search/store.js';
import { CappedMemo } from '../util/memo.js';

/**
 * The warm search API: one object holding the open index database (and, with
 * an `embeddings` profile, the vectors) for a long-lived process such as the
 * MCP server, and what a CLI search opens once. The database is in WAL mode:
 * the open connection sees what a build or `watch` committed since the last
 * query, so an edit is found at once without reopening anything.
 */

/** Nearest documents by embedding taken into the fusion. */
const SEMANTIC_CANDIDATES = 100;
/** Query vectors kept per session (one request each the first time a query text is seen). */
const MAX_QUERY_VECTORS = 1000;

export interface SessionSearchOptions extends Omit<SearchOptions, 'semantic'> {
  /** What `since:`/`until:` phrases (`last week`) are relative to; default now. */
  now?: Date;
}

export interface SearchResponse {
  hits: SearchGroup[];
  /** Documents in the index. */
  documents: number;
  /** With an `embeddings` profile: whether vectors took part, and why not when they did not. Absent offline. */
  semantic?: { model: string; used: boolean; vectors: number; note?: string };
}

export interface SearchSession {
  readonly root: string;
  readonly config: Config;
  /** What building the index cost when `openSearch` found none (or was asked to reindex). */
  readonly built: IndexReport | undefined;
  /**
   * Runs a query (words, "phrases", `tag:` `kind:` `stream:` `tier:` `since:` `until:`).
   *
   * @example
   *   const { hits } = await session.search('server sessions tag:auth', { limit: 5 });
   */
  search(query: string, options?: SessionSearchOptions): Promise<SearchResponse>;
  /** The index as it is now (what builds committed since the last call included). */
  current(): Promise<LoadedIndex>;
}

export interface OpenSearchOptions extends EmbedderOptions {
  /** Re-index from the vault first (`memvault search --reindex`). */
  reindex?: boolean;
}

/**
 * Opens the index under `root` for searching, or builds it from the vault when it is missing, damaged, foreign or outdated.
 *
 * @example
 *   const session = await openSearch('/repo');
 *   const { hits } = await session.search('deploy rollback');
 */
export async function openSearch(root: string, options: OpenSearchOptions = {}): Promise<SearchSession> {
  const config = await loadValidConfigCached(root);
  const vaultDir = path.resolve(root, config.vault);
  let built: IndexReport | undefined;
  const rebuild = async (options: EnsureOptions): Promise<LoadedIndex> => {
    // The vault (its loader, the frontmatter parser) is loaded only when there is no usable index.
    const vault = (await (await import('./vault.js')).openVault(root)).loaded;
    // Updated, read back, rebuilt once more when it cannot be, else indexed in memory (store.ts): never an error.
    const { loaded, report } = ensureSearchIndex(root, vault, {
      ...options,
      onRebuilt: (later) => {
        built = later;
      },
    });
    built = report;
    return loaded;
  };
  const current = async (): Promise<LoadedIndex> => readIndex(root) ?? rebuild({});
  if (options.reindex) await rebuild({ force: true });
  else await current();
  const semantic = config.embeddings ? semanticSide(root, config, options) : undefined;
  const readFile = (vaultPath: string): string | undefined => {
    const file = path.resolve(vaultDir, vaultPath);
    // The index is a file on disk: a path in it never leads outside the vault.
    if (!file.startsWith(`${vaultDir}${path.sep}`)) return undefined;
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  };
  return {
    root,
    config,
    get built() {
      return built;
    },
    current,
    async search(text, searchOptions = {}) {
      const { now = new Date(), ...rest } = searchOptions;
      // Parsed (and its size checked) before the index is touched.
      const query = parseQuery(text);
      const at = { now, zone: config.timezone };
      // `since:` and `until:` take periods (`since:2026-02`, `until:"last week"`); the calendar code is loaded only for them.
      if (query.filters.since.length > 0 || query.filters.until.length > 0) {
        const { parsePeriod } = await import('./period-query.js');
        query.filters.since = query.filters.since.map((value) => parsePeriod(value, at).start);
        query.filters.until = query.filters.until.map((value) => parsePeriod(value, at).end);
      }
      const run = async (loaded: LoadedIndex): Promise<SearchResponse> => {
        const ranked = semantic && query.text.trim() ? await semantic.rank(query.text, loaded) : undefined;
        // Memories whose citations went stale rank lower unless the query names what they cite; hits carry their state.
        const citations = citationLookup(root);
        const boost = citations ? citationBoost(citations, query.text, rest.boost) : rest.boost;
        const options = { ...rest, ...(boost ? { boost } : {}), ...(ranked?.ids ? { semantic: ranked.ids } : {}) };
        const hits = withCitations(runSearch(loaded.index, query, options, readFile), citations);
        return { hits, documents: loaded.index.size, ...(ranked ? { semantic: ranked.info } : {}) };
      };
      // Damage the open did not show (pages of the postings), or a file replaced under the connection by another
      // process: opened again first (the file at the path now may be a good one), then rebuilt from the vault, then
      // searched in memory. The index is derived: a search never fails because of it.
      const attempts: (() => Promise<LoadedIndex>)[] = [
        current,
        async () => {
          closeIndex(root);
          return current();
        },
        () => rebuild({ damaged: true }),
      ];
      for (const attempt of attempts) {
        try {
          return await run(await attempt());
        } catch (error) {
          if (!isIndexDamage(error)) throw error;
        }
      }
      return run(await rebuild({ damaged: true, inMemory: true }));
    },
  };
}

interface SemanticSide {
  rank(text: string, loaded: LoadedIndex): Promise<{ ids?: string[]; info: NonNullable<SearchResponse['semantic']> }>;
}

function semanticSide(root: string, config: Config, options: EmbedderOptions): SemanticSide {
  const profile = config.embeddings!;
  // The embeddings client (and the LLM transport under it) is loaded on the first query, only with an `embeddings` profile.
  const modules = Promise.all([import('../search/embeddings/client.js'), import('../search/embeddings/vectors.js')]);
  let store: { stamp: string; vectors: VectorStore } | undefined;
  let embedder: Embedder | undefined;
  const queries = new CappedMemo<string, Float32Array>(MAX_QUERY_VECTORS);
  return {
    async rank(text, loaded) {
      const [{ createEmbedder, EmbeddingError }, { normalize, openVectorStore, vectorsStamp }] = await modules;
      const stamp = vectorsStamp(root, profile.model, profile.dimensions);
      // Vectors a build appended since: the store is opened again (one read of the file).
      if (store?.stamp !== stamp) store = { stamp, vectors: openVectorStore(root, profile.model, profile.dimensions) };
      const info = { model: profile.model, used: false, vectors: store.vectors.size };
      if (store.vectors.size === 0) return { info: { ...info, note: 'no vectors yet: run `memvault build`' } };
      let vector = queries.peek(text);
      if (!vector) {
        try {
          embedder ??= createEmbedder(config, profile, options);
          vector = normalize((await embedder.embed([text]))[0]!);
        } catch (error) {
          const why = error instanceof EmbeddingError ? error.fault.message : (error as Error).message;
          return { info: { ...info, note: `query not embedded, BM25 only: ${why}` } };
        }
        queries.set(text, vector);
      }
      const vectors = store.vectors;
      const candidates = function* (): Generator<[string, Float32Array | undefined]> {
        for (const [id, sha] of loaded.index.hashes()) yield [id, vectors.get(sha)];
      };
      const ids = nearest(vector, candidates(), SEMANTIC_CANDIDATES).map((near) => near.id);
      return { ids, info: { ...info, used: true } };
    },
  };
}
