/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranked
 * list gives a document `1 / (k + rank)` (rank from 1), the sums order the
 * fused list. It needs no score calibration between BM25 and cosine
 * similarity, and k = 60 (the paper's value) keeps one list's top hit from
 * drowning what both lists agree on. Pure.
 */

export const RRF_K = 60;

/**
 * Fuses ranked lists of ids, best first.
 *
 * @example
 *   reciprocalRankFusion([['a', 'b'], ['b', 'c']]) // [{ id: 'b', score: 0.0325 }, { id: 'a', … }, { id: 'c', … }]
 */
export function reciprocalRankFusion(lists: readonly (readonly string[])[], k = RRF_K): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Ids ranked by cosine similarity of their unit vectors to a unit query vector, best first, at most `limit`. */
export function nearest(
  query: Float32Array,
  candidates: Iterable<[id: string, vector: Float32Array | undefined]>,
  limit: number,
): { id: string; similarity: number }[] {
  const scored: { id: string; similarity: number }[] = [];
  for (const [id, vector] of candidates) {
    if (!vector || vector.length !== query.length) continue;
    let dot = 0;
    for (let i = 0; i < query.length; i++) dot += query[i]! * vector[i]!;
    scored.push({ id, similarity: dot });
  }
  return scored.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1)).slice(0, limit);
}

/** A search result as `runSearch` reads it: stored fields, score, matched terms. */
export type RankedResult = { id: string; score: number; terms: string[] };

/**
 * BM25 results fused with a semantic ranking (ids best first): a document
 * only the vectors found joins with its stored fields and no matched terms
 * (its snippet is its first line); `keep` is the query's filter.
 */
export function fuseResults<T extends RankedResult, F extends object>(
  bm25: readonly T[],
  semantic: readonly string[],
  stored: (id: string) => F | undefined,
  keep: (fields: F) => boolean,
): (T | (F & RankedResult))[] {
  const byId = new Map(bm25.map((result) => [result.id, result]));
  const near: string[] = [];
  for (const id of semantic) {
    if (byId.has(id)) near.push(id);
    else {
      const fields = stored(id);
      if (fields && keep(fields)) near.push(id);
    }
  }
  return reciprocalRankFusion([bm25.map((result) => result.id), near]).map(({ id, score }) => {
    const found = byId.get(id);
    return found ? { ...found, score } : { ...stored(id)!, id, score, terms: [] };
  });
}
