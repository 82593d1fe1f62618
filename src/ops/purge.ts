import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { openCitationStore } from '../citations/store.js';
import { clearStartCache } from '../hooks/start-cache.js';
import { searchDir } from '../search/db.js';
import { STATE_FILE } from '../store/database.js';
import { purgeParseCache } from '../store/cache.js';

/**
 * What `memvault redact` removes besides the secrets themselves: the derived
 * stores of `.memvault/` that may hold a redacted memory's text as it was,
 * all disposable (rebuilt from the vault by the next build or search):
 * - in the state store (`state.sqlite`): the parse cache (the memory's entry,
 *   the secrets found in it, its body, the lists of summaries made from it),
 *   the session-start hook's answer and the citations' results (titles); the file is vacuumed, so no free page
 *   keeps the text;
 * - the search index (`search/`): its text, and SQLite keeps deleted rows in
 *   free pages.
 * Not removed: the usage totals and log (paths and counts), the committed
 * record's state (hashes), embeddings (vectors by content hash), and the
 * answers of `facts --check` (verdicts by content hash, made from redacted
 * requests). Run under the build lock. Returns the removed paths, relative
 * to the project.
 */
export function purgeDerivedStores(root: string): string[] {
  const stateDir = path.join(root, '.memvault');
  const stores = [
    {
      path: path.join(stateDir, STATE_FILE),
      remove: () => {
        clearStartCache(root);
        // The citations' records hold memory titles (src/citations/store.ts): the next build checks everything again.
        openCitationStore(stateDir).clear();
        purgeParseCache(stateDir);
      },
    },
    { path: searchDir(root), remove: (dir: string) => rmSync(dir, { recursive: true, force: true }) },
  ];
  const removed: string[] = [];
  for (const store of stores) {
    if (!existsSync(store.path)) continue;
    store.remove(store.path);
    removed.push(path.relative(root, store.path).split(path.sep).join('/'));
  }
  return removed;
}
