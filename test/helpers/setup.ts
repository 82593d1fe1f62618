import { afterAll } from 'vitest';
import { closeIndexes } from '../../src/search/store.js';
import { closeStateStores } from '../../src/store/database.js';

/**
 * Runs before every test file (vitest `setupFiles`). The suite runs its files one after another in long-lived
 * processes (`isolate: false`), so what a file's code keeps at module level outlives it: here the SQLite connections
 * the state store and the search index keep per project (src/store/database.ts, src/search/store.ts). A file's
 * projects are removed when it ends; closing their connections then keeps a worker from holding hundreds of them
 * (file handles and page caches of deleted files) by the end of the suite, and no file can find another's open.
 */
afterAll(() => {
  closeIndexes();
  closeStateStores();
});
