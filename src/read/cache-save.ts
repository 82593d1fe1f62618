import { statSync } from 'node:fs';
import path from 'node:path';
import type { LoadedVault } from '../vault/load.js';

/**
 * A read command saves the parse cache its load changed: memories edited or
 * added since the last build are parsed once, not by every read command until
 * the next build (at 20,000 memories a load that misses the cache costs
 * seconds). The build owns the cache, so the save happens only
 * - under the build lock, taken without waiting: while a build or `watch`
 *   holds it, nothing is saved (that build saves its own, newer cache); a
 *   build that starts meanwhile waits for the save (util/lock.ts);
 * - when the cache on disk is still the one the load read (`cacheStamp`
 *   before the load and under the lock): a build that ran in between may have
 *   rewritten or compacted `content.pack`, and the ranges this load knows
 *   would point into the wrong file.
 * A save that fails for any other reason is dropped: the cache is an
 * optimisation, and a read command never fails over it.
 */

const CACHE_FILES = ['files.json', 'files.log', 'content.pack'];

/** Size, mtime and inode of the parse cache's files ('none' for a missing one): changes with every save. */
export function cacheStamp(cacheDir: string): string {
  return CACHE_FILES.map((name) => {
    try {
      const stat = statSync(path.join(cacheDir, name));
      return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    } catch {
      return 'none';
    }
  }).join('|');
}

/**
 * Saves `loaded.cache` when the build lock is free and the cache on disk is as it was before the load (`before`, from
 * `cacheStamp`). Returns whether it saved.
 */
export async function saveParseCache(root: string, cacheDir: string, loaded: LoadedVault, before: string): Promise<boolean> {
  const { acquireBuildLock, READ_SAVE_COMMAND } = await import('../util/lock.js');
  let release: () => Promise<void>;
  try {
    release = await acquireBuildLock(path.join(root, '.memvault'), READ_SAVE_COMMAND, false);
  } catch {
    return false; // a build or watch holds the lock: it saves the cache itself
  }
  try {
    if (cacheStamp(cacheDir) !== before) return false;
    loaded.cache.save();
    return true;
  } catch {
    return false;
  } finally {
    await release().catch(() => {});
  }
}
