/**
 * The fingerprint groups of citing memories (build-step.ts): a memory path's
 * group, two hex digits of an FNV-1a hash of it. A build that finds a few
 * groups changed works out and replaces only their memories. (Tried: the group
 * as the first column of `citing_memories`' key, so that their rows are found
 * without walking every row's path: a full write's 17,600 inserts cost ~8 %
 * more CPU, more than the ~10 ms walk it saves an edit.)
 */

/** Groups of citing memories fingerprinted together (`inputs` of a verification): ~80 each at 20,000 citing memories. */
export const SHARDS = 256;

/** The group of a memory path: FNV-1a of it, two hex digits. */
export function shardOf(key: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return ((hash >>> 0) % SHARDS).toString(16).padStart(2, '0');
}
