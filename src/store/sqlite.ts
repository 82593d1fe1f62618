import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

/** The state store's file in `.memvault/` (here, not in database.ts, for the pre-tool hook: it loads nothing else). */
export const STATE_FILE = 'state.sqlite';

/**
 * The better-sqlite3 driver, loaded on first use: a command that never opens a
 * database does not load the native addon. Shared by the state store
 * (store/database.ts) and the search index (read/search/db.ts).
 */
let driver: typeof Database | undefined;
export function sqlite(): typeof Database {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return driver;
}

/**
 * Where the addon is, when it is where npm builds it: passed as `nativeBinding`, so better-sqlite3 does not look for
 * it through the `bindings` package, whose search (failed `require`s of other build folders, a stack trace to find the
 * package root) cost ~15-25 ms of every CLI command that opens a database. Elsewhere (another build type), the
 * package finds it as before.
 */
let addon: { nativeBinding?: string } | undefined;
export function addonOption(): { nativeBinding?: string } {
  if (!addon) {
    let file: string | undefined;
    try {
      file = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      file = undefined;
    }
    addon = file && existsSync(file) ? { nativeBinding: file } : {};
  }
  return addon;
}
