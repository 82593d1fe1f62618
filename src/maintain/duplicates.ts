import { contentWords } from '../text/terms.js';
import type { Importance } from '../vault/model.js';

/**
 * Near-duplicate memories: the same note ingested twice, a session pasted
 * again with a line changed. Two memories are near-duplicates when the
 * Jaccard similarity of their sets of word 3-shingles (content words, stop
 * words removed) is at least `DUPLICATE_THRESHOLD` and they state the same
 * values (`valuesOf`: numbers, dates, versions, hashes, code spans and
 * identifiers). The shingles leave digits out, so "pool size 20" and a later
 * "pool size 80" are alike in words; a copy marked `duplicate_of` is left out
 * of summaries, and merging those two would hide the newer value. Candidate pairs come
 * from shared rare shingles (prefix filtering over an inverted index), so a
 * vault is not compared pair by pair. Pure: the caller reads the files and
 * writes `duplicate_of`.
 *
 * No maintained MinHash/LSH library exists for Node (the npm packages are
 * unmaintained since 2019); exact Jaccard over candidate pairs is simpler and
 * exact at the sizes a vault has.
 */

/** Words per shingle. */
export const SHINGLE_WORDS = 3;
/** Jaccard similarity from which two memories are one (0.8: a sentence or two of twenty changed). */
export const DUPLICATE_THRESHOLD = 0.8;

export interface DuplicateInput {
  id: string;
  path: string;
  day: string;
  importance: Importance;
  /** The memory's body (frontmatter removed). */
  text: string;
}

export interface DuplicateGroup {
  /**
   * The memory that stays: highest importance, then the earliest, then by path.
   * The earliest is the original the copies repeat: a later copy never takes its
   * place, so marks made before stay right. A newer memory stating another
   * value is never in the group (`valuesOf`), so this hides no newer value.
   */
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

/**
 * The values a memory states, which words alone do not tell apart: every
 * token holding a digit (numbers, dates, times, versions, hashes, `#412`,
 * `PG16`, `20MB`), every identifier (`snake_case`, `camelCase`, dotted or
 * slashed names such as `config.yaml`, `src/app.ts`) and every code span,
 * lower-cased, with thousands separators and trailing punctuation removed.
 * Two memories whose sets differ in any way are never duplicates.
 */
export function valuesOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const [, code] of text.matchAll(/`([^`\n]+)`/g)) out.add(`\`${code!.trim().toLowerCase()}\``);
  for (const [token] of text.matchAll(/[\p{L}\p{N}_#$][\p{L}\p{N}_.,:/+#-]*/gu)) {
    // A sentence's full stop, a list's comma: not part of the value. `5,000` and `5000` are one number.
    const value = token.replace(/[.,:/+-]+$/, '').replace(/(?<=\d),(?=\d{3}\b)/g, '');
    if (/\d/.test(value) || /_|\p{Ll}\p{Lu}|\p{L}[./]\p{L}/u.test(value)) out.add(value.toLowerCase());
  }
  return out;
}

/** `valuesOf` as one comparable string. */
function valuesKey(text: string): string {
  return [...valuesOf(text)].sort().join('\n');
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const item of small) if (large.has(item)) shared++;
  return shared / (a.size + b.size - shared);
}

const RANK: Record<Importance, number> = { pinned: 3, high: 2, normal: 1, low: 0 };

/** `minShingles`: memories with fewer shingles take no part (the build's warning skips one-line notes such as `Deployed.`). */
export function findDuplicates(memories: readonly DuplicateInput[], threshold = DUPLICATE_THRESHOLD, minShingles = 1): DuplicateGroup[] {
  const sets = memories.map((memory) => shingles(memory.text));
  // Equal values is an equivalence, so the groups below stay groups of memories stating the same values. Worked out
  // only for the memories of candidate pairs (most have none: every memory's values cost ~20 ms of an edit's build).
  const values: (string | undefined)[] = new Array(memories.length);
  const valuesAt = (i: number): string => (values[i] ??= valuesKey(memories[i]!.text));
  // Prefix and positional filtering (the PPJoin set-similarity join): with every set's shingles in one global order,
  // rarest first, two sets with Jaccard ≥ t share a shingle among the first |x| − ⌈t·|x|⌉ + 1 of each, and the shingles
  // after a shared one must still be able to make up the overlap the threshold needs. Only prefixes are indexed and
  // probed, candidates that cannot reach the overlap are dropped on the way, and each one left is checked exactly.
  const frequency = new Map<string, number>();
  for (const set of sets) for (const shingle of set) frequency.set(shingle, (frequency.get(shingle) ?? 0) + 1);
  // Each shingle's place in the global order as a number, so a set is ordered by comparing numbers, not looking up strings.
  // Sorted as [shingle, count] pairs: the comparator reads the counts without two map lookups (~73,000 shingles in the
  // bench's 4,000 memories: 157 → 107 ms).
  const rank = new Map<string, number>();
  [...frequency]
    .sort(([a, countA], [b, countB]) => countA - countB || (a < b ? -1 : a > b ? 1 : 0))
    .forEach(([shingle], place) => rank.set(shingle, place));
  const bySize = memories.map((_, index) => index).sort((a, b) => sets[a]!.size - sets[b]!.size || a - b);
  // Union-find over the pairs at or above the threshold.
  const parent = memories.map((_, index) => index);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  // The epsilon keeps 0.7 × 10 (7.000000000000001 in floating point) from asking for one shared shingle too many.
  const atLeast = (value: number): number => Math.ceil(value - 1e-9);
  const index = new Map<number, { at: number; position: number }[]>();
  for (const x of bySize) {
    const set = sets[x]!;
    if (set.size === 0 || set.size < minShingles) continue;
    const tokens = Int32Array.from(set, (shingle) => rank.get(shingle)!).sort();
    const prefix = set.size - atLeast(threshold * set.size) + 1;
    // Candidate → shared shingles found so far (-1: cannot reach the overlap any more).
    const overlap = new Map<number, number>();
    for (let i = 0; i < prefix; i++) {
      for (const { at: y, position: j } of index.get(tokens[i]!) ?? []) {
        const size = sets[y]!.size;
        // Sets come smallest first: |y| ≤ |x| bounds the similarity by |y| / |x|.
        if (size + 1e-9 < threshold * set.size) continue;
        const found = overlap.get(y) ?? 0;
        if (found < 0) continue;
        const needed = atLeast((threshold / (1 + threshold)) * (set.size + size));
        const reachable = found + 1 + Math.min(set.size - i - 1, size - j - 1);
        overlap.set(y, reachable >= needed ? found + 1 : -1);
      }
    }
    for (const [y, found] of overlap)
      if (found > 0 && jaccard(set, sets[y]!) >= threshold && valuesAt(x) === valuesAt(y)) parent[find(x)] = find(y);
    for (let i = 0; i < prefix; i++) {
      const list = index.get(tokens[i]!);
      if (list) list.push({ at: x, position: i });
      else index.set(tokens[i]!, [{ at: x, position: i }]);
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
