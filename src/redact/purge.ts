import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startCacheFile } from '../hooks/start-cache.js';
import { searchDir } from '../read/search/db.js';
import { purgeParseCache } from '../vault/cache.js';

/**
 * What `memvault redact` removes besides the secrets themselves: the derived
 * stores of `.memvault/` that may hold a redacted memory's text as it was,
 * all disposable (rebuilt from the vault by the next build or search):
 * - the parse cache (`cache/`): the memory's entry, the secrets found in it,
 *   old records of its body and of summaries made from it;
 * - the search index (`search/`): its text, and SQLite keeps deleted rows in
 *   free pages;
 * - the session-start hook's cached answer (`hooks/session-start.json`).
 * Not removed: the usage totals and log (paths and counts), the committed
 * record's state (hashes), embeddings (vectors by content hash), and the
 * answers of `facts --check` (verdicts by content hash, made from redacted
 * requests). Run under the build lock. Returns the removed paths, relative
 * to the project.
 */
export function purgeDerivedStores(root: string): string[] {
  const stateDir = path.join(root, '.memvault');
  const stores = [
    { path: path.join(stateDir, 'cache'), remove: purgeParseCache },
    { path: searchDir(root), remove: (dir: string) => rmSync(dir, { recursive: true, force: true }) },
    { path: startCacheFile(root), remove: (file: string) => rmSync(file, { force: true }) },
  ];
  const removed: string[] = [];
  for (const store of stores) {
    if (!existsSync(store.path)) continue;
    store.remove(store.path);
    removed.push(path.relative(root, store.path).split(path.sep).join('/'));
  }
  return removed;
}
