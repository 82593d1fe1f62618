import path from 'node:path';
import { parseCacheStamp } from '../store/cache.js';
import type { LoadedVault } from '../load/load.js';

/**
 * A read command saves the parse cache its load changed: memories edited or
 * added since the last build are parsed once, not by every read command until
 * the next build (at 20,000 memories a load that misses the cache costs
 * seconds). The build owns the cache, so the save happens only
 * - under the build lock, taken without waiting: while a build or `watch`
 *   holds it, nothing is saved (that build saves its own, newer cache); a
 *   build that starts meanwhile waits for the save (util/lock.ts);
 * - when the cache in the store is still the one the load read (`cacheStamp`
 *   before the load and under the lock): a build that ran in between saved
 *   newer entries, which this load's older ones must not overwrite.
 * A save that fails for any other reason is dropped: the cache is an
 * optimisation, and a read command never fails over it.
 */

/** The parse cache's generation in the state store of `stateDir` (`.memvault/`): changes with every save. */
export const cacheStamp = parseCacheStamp;

/**
 * Saves `loaded.cache` when the build lock is free and the cache in the store is as it was before the load (`before`,
 * from `cacheStamp`). Returns whether it saved.
 */
export async function saveParseCache(root: string, stateDir: string, loaded: LoadedVault, before: string): Promise<boolean> {
  const { acquireBuildLock, READ_SAVE_COMMAND } = await import('../util/lock.js');
  let release: () => Promise<void>;
  try {
    release = await acquireBuildLock(path.join(root, '.memvault'), READ_SAVE_COMMAND, false);
  } catch {
    return false; // a build or watch holds the lock: it saves the cache itself
  }
  try {
    if (cacheStamp(stateDir) !== before) return false;
    loaded.cache.save();
    return true;
  } catch {
    return false;
  } finally {
    await release().catch(() => {});
  }
}
