import { reciprocalRankFusion } from '../search/fuse.js';

/**
 * Which pairs of decisions `memvault facts --check` asks a model about:
 * each candidate's nearest neighbours by search similarity (the search
 * index's BM25, fused with the build's embeddings when configured), fused
 * once more over all candidates by reciprocal rank, so a pair both sides
 * find comes first. Pure: the neighbour lists come in from the edge.
 */

/** A memory that states a decision or a fact. */
export interface CheckCandidate {
  /** Vault-relative path: the document's id in the search index. */
  path: string;
  /** Memory id. */
  id: string;
  day: string;
  /** Content hash of the file: what a cached answer is pinned to. */
  sha256: string;
  /** Memory ids this one replaces, holds together with or repeats (`supersedes`, `compatible_with`, `duplicate_of`): settled by a person. */
  related: readonly string[];
}

/** Two candidates to ask about; `a` has the smaller path. */
export interface CandidatePair {
  a: CheckCandidate;
  b: CheckCandidate;
  /** Fused reciprocal-rank score: higher means more alike. */
  score: number;
}

/** Neighbours per candidate that take part in the fusion (more are rarely about the same subject). */
export const NEIGHBOURS_PER_CANDIDATE = 5;

/**
 * The cache key of a pair: the two content hashes, sorted, so the order a
 * pair was found in does not matter and an edit to either file asks again.
 *
 * @example
 *   pairKey('b1…', 'a9…') // 'a9…:b1…'
 */
export function pairKey(shaA: string, shaB: string): string {
  return shaA < shaB ? `${shaA}:${shaB}` : `${shaB}:${shaA}`;
}

/**
 * The pairs worth asking about, most alike first, at most `maxPairs`;
 * `found` counts them all. A pair is left out when it is one memory twice,
 * two files with the same content, pairs a person already settled (`related`),
 * or what `skip` says (e.g. a contradiction the fact rules already report).
 *
 * @example
 *   selectPairs(candidates, new Map([['a.md', ['b.md']], ['b.md', ['a.md']]]), { maxPairs: 50 })
 *   // { pairs: [{ a: a.md, b: b.md, score: 0.0328 }], found: 1 }
 */
export function selectPairs(
  candidates: readonly CheckCandidate[],
  neighbours: ReadonlyMap<string, readonly string[]>,
  options: { maxPairs: number; skip?: (a: CheckCandidate, b: CheckCandidate) => boolean },
): { pairs: CandidatePair[]; found: number } {
  const byPath = new Map(candidates.map((candidate) => [candidate.path, candidate]));
  const settled = (a: CheckCandidate, b: CheckCandidate): boolean =>
    a.sha256 === b.sha256 || a.related.includes(b.id) || b.related.includes(a.id) || (options.skip?.(a, b) ?? false);
  const lists: string[][] = [];
  const sorted = [...candidates].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  for (const candidate of sorted) {
    const list: string[] = [];
    for (const other of neighbours.get(candidate.path) ?? []) {
      const near = byPath.get(other);
      if (!near || near.path === candidate.path || settled(candidate, near)) continue;
      const key = candidate.path < near.path ? `${candidate.path}\u0000${near.path}` : `${near.path}\u0000${candidate.path}`;
      if (!list.includes(key)) list.push(key);
      if (list.length >= NEIGHBOURS_PER_CANDIDATE) break;
    }
    lists.push(list);
  }
  const fused = reciprocalRankFusion(lists);
  const pairs = fused.slice(0, Math.max(0, options.maxPairs)).map(({ id, score }) => {
    const [first, second] = id.split('\u0000') as [string, string];
    return { a: byPath.get(first)!, b: byPath.get(second)!, score };
  });
  return { pairs, found: fused.length };
}
