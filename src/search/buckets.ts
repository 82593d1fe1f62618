import type { LoadedVault } from '../load/load.js';

/**
 * Buckets of the search index's manifest, so an update after one edit reads
 * a few hundred `docs` rows instead of all of them. A bucket is a folder and
 * the first seven characters of the file names in it (a month of memories or
 * dailies, a few weeks of weeklies). Its digest sums a 64-bit hash of each
 * document's path and content hash: order does not matter, so the vault side
 * is worked out in one pass over the loader's documents, with nothing sorted
 * and no document object built. Pure.
 */

/** The bucket of a vault path: `main/memories/2026/11/2026-11` for `main/memories/2026/11/2026-11-20-x.md`. */
export function bucketOf(id: string): string {
  return id.slice(0, id.lastIndexOf('/') + 8);
}

/**
 * The ids a prefix range over `bucket` may hold (`id >= low AND id < high`); callers keep those whose `bucketOf` is the
 * bucket. SQLite compares the UTF-8 bytes: U+10FFFF encodes above every character, astral ones (emoji) included.
 */
export function bucketRange(bucket: string): [string, string] {
  return [bucket, `${bucket}\u{10ffff}`];
}

/** A running digest: how many documents, and two 32-bit sums of per-document hashes. */
export class Digest {
  n = 0;
  private a = 0;
  private b = 0;

  add(id: string, sha256: string): void {
    this.n++;
    // FNV-1a over the file name (the folder is the bucket's), then on over the content hash's first 16 hex digits.
    let h = 0x811c9dc5;
    for (let i = id.lastIndexOf('/') + 1; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
    let c = h;
    for (let i = 0; i < 16 && i < sha256.length; i++) c = Math.imul(c ^ sha256.charCodeAt(i), 0x01000193);
    this.a = (this.a + (c >>> 0)) >>> 0;
    // A second lane, the path's hash mixed with the content hash's first 32 bits: a change must fool both sums to go unseen.
    const head = Number.parseInt(sha256.slice(16, 24), 16) || c;
    this.b = (this.b + ((Math.imul(h, 0x9e3779b1) ^ head) >>> 0)) >>> 0;
  }

  toString(): string {
    return `${this.n}.${this.a.toString(36)}.${this.b.toString(36)}`;
  }
}

/**
 * `bucketOf` for paths that come folder by folder, month by month (the loader's order): the last bucket is checked
 * first, without slicing the path (20,000 slices and the `Map` lookups of new strings were most of an update's time).
 */
function bucketTracker(): (id: string) => string {
  let last = '\u0000';
  return (id) => {
    if (id.lastIndexOf('/') + 8 !== last.length || !id.startsWith(last)) last = bucketOf(id);
    return last;
  };
}

/** Digests of every bucket of the documents `each` gives (path, content hash). */
export function digestsOf(each: (visit: (id: string, sha256: string) => void) => void): Map<string, Digest> {
  const digests = new Map<string, Digest>();
  const bucket = bucketTracker();
  let last = '';
  let digest: Digest | undefined;
  each((id, sha) => {
    const key = bucket(id);
    if (!digest || key !== last) {
      last = key;
      digest = digests.get(key);
      if (!digest) {
        digest = new Digest();
        digests.set(key, digest);
      }
    }
    digest.add(id, sha);
  });
  return digests;
}

/** Visits path and content hash of every document of the loaded vault (in `buckets` only, when given), straight from the loader. */
export function vaultPairs(vault: LoadedVault, buckets?: ReadonlySet<string>): (visit: (id: string, sha256: string) => void) => void {
  return (visit) => {
    const bucket = bucketTracker();
    let last = '';
    let wanted = true;
    const inBuckets = (id: string): boolean => {
      if (!buckets) return true;
      const key = bucket(id);
      if (key !== last) {
        last = key;
        wanted = buckets.has(key);
      }
      return wanted;
    };
    for (const stream of vault.state.streams.values()) {
      for (const m of stream.memories) if (inBuckets(m.path)) visit(m.path, m.sha256);
      for (const s of stream.summaries.values()) if (inBuckets(s.path)) visit(s.path, s.sha256);
    }
  };
}

/** The pairs `each` gives, as a map. */
export function pairMap(each: (visit: (id: string, sha256: string) => void) => void): Map<string, string> {
  const out = new Map<string, string>();
  each((id, sha) => out.set(id, sha));
  return out;
}
