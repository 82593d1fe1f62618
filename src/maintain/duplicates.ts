import { contentWords } from '../text/terms.js';
import type { Importance } from '../vault/model.js';

/**
 * Near-duplicate memories: the same note ingested twice, a session pasted
 * again with a line changed. Two memories are near-duplicates when the
 * Jaccard similarity of their sets of word 3-shingles (content words, stop
 * words removed) is at least `DUPLICATE_THRESHOLD`. Candidate pairs come
 * from shared shingles (an inverted index), so a vault is not compared pair
 * by pair. Pure: the caller reads the files and writes `duplicate_of`.
 *
 * No maintained MinHash/LSH library exists for Node (the npm packages are
 * unmaintained since 2019); exact Jaccard over candidate pairs is simpler and
 * exact at the sizes a vault has.
 */

/** Words per shingle. */
export const SHINGLE_WORDS = 3;
/** Jaccard similarity from which two memories are one (0.8: a sentence or two of twenty changed). */
export const DUPLICATE_THRESHOLD = 0.8;
/** A shingle in more memories than this is boilerplate (a template line): it does not make pairs. */
const MAX_POSTING = 64;

export interface DuplicateInput {
  id: string;
  path: string;
  day: string;
  importance: Importance;
  /** The memory's body (frontmatter removed). */
  text: string;
}

export interface DuplicateGroup {
  /** The memory that stays: highest importance, then the earliest, then by path. */
  keep: { id: string; path: string };
  /** The others, each with its similarity to the one kept, most similar first. */
  duplicates: { id: string; path: string; similarity: number }[];
}

export function shingles(text: string): Set<string> {
  const words = contentWords(text);
  if (words.length < SHINGLE_WORDS) return new Set(words);
  const out = new Set<string>();
  for (let i = 0; i + SHINGLE_WORDS <= words.length; i++) out.add(words.slice(i, i + SHINGLE_WORDS).join(' '));
  return out;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const item of small) if (large.has(item)) shared++;
  return shared / (a.size + b.size - shared);
}

const RANK: Record<Importance, number> = { pinned: 3, high: 2, normal: 1, low: 0 };

export function findDuplicates(memories: readonly DuplicateInput[], threshold = DUPLICATE_THRESHOLD): DuplicateGroup[] {
  const sets = memories.map((memory) => shingles(memory.text));
  const postings = new Map<string, number[]>();
  sets.forEach((set, index) => {
    for (const shingle of set) {
      const list = postings.get(shingle);
      if (list) list.push(index);
      else postings.set(shingle, [index]);
    }
  });
  // Union-find over the pairs at or above the threshold.
  const parent = memories.map((_, index) => index);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const compared = new Set<string>();
  for (const list of postings.values()) {
    if (list.length < 2 || list.length > MAX_POSTING) continue;
    for (let x = 0; x < list.length; x++) {
      for (let y = x + 1; y < list.length; y++) {
        const [i, j] = [list[x]!, list[y]!];
        const pair = `${i}:${j}`;
        if (compared.has(pair)) continue;
        compared.add(pair);
        // Sizes alone bound the similarity: a set three times the other's cannot reach 0.8.
        const [small, large] = sets[i]!.size <= sets[j]!.size ? [sets[i]!.size, sets[j]!.size] : [sets[j]!.size, sets[i]!.size];
        if (small / large < threshold) continue;
        if (jaccard(sets[i]!, sets[j]!) >= threshold) parent[find(i)] = find(j);
      }
    }
  }
  const groups = new Map<number, number[]>();
  memories.forEach((_, index) => {
    const root = find(index);
    groups.set(root, [...(groups.get(root) ?? []), index]);
  });
  const out: DuplicateGroup[] = [];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const ordered = [...members].sort((a, b) => {
      const [ma, mb] = [memories[a]!, memories[b]!];
      return RANK[mb.importance] - RANK[ma.importance] || ma.day.localeCompare(mb.day) || ma.path.localeCompare(mb.path);
    });
    const keep = ordered[0]!;
    const duplicates = ordered
      .slice(1)
      .map((index) => ({ id: memories[index]!.id, path: memories[index]!.path, similarity: round(jaccard(sets[keep]!, sets[index]!)) }))
      .sort((a, b) => b.similarity - a.similarity || a.path.localeCompare(b.path));
    out.push({ keep: { id: memories[keep]!.id, path: memories[keep]!.path }, duplicates });
  }
  return out.sort((a, b) => a.keep.path.localeCompare(b.keep.path));
}

const round = (value: number) => Math.round(value * 1000) / 1000;
