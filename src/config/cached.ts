import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { openStateStore } from '../store/database.js';
import { kvTable } from '../store/kv.js';
import { CONFIG_FILE, STATE_DIR } from './file.js';
import type { Config } from './schema.js';

/**
 * The validated config for the read side's short commands (search, zoom,
 * context, the session hooks), kept in the state store (`.memvault/state.sqlite`,
 * the `config` row of `kv`).
 * Importing the YAML parser and the zod schema and running the schema costs
 * ~80 ms of CPU on every start, more than a search itself; the answer depends
 * only on the config file's bytes and on the code that validates them.
 *
 * The key is the SHA-256 of: the config file's bytes; the code (a hash of
 * every compiled source file and of package-lock.json, which the bundle
 * script puts in `__MEMVAULT_CODE_HASH__`); the Node version and its time
 * zone data (the `timezone` check asks Intl). Code run without the bundle
 * (tsc's output, the tests in-process) has no code hash and never uses the
 * cache. Only a valid config is kept: an invalid one is validated every time
 * and fails with the same errors as `loadValidConfig`. A missing or unreadable
 * row is a miss; a cache that cannot be written costs the next command the
 * full validation, nothing else. The row is checked without zod (only its
 * envelope: the config in it is the schema's own output, kept under the hash
 * of the bytes and code that made it): loading zod is what the cache saves.
 */

declare const __MEMVAULT_CODE_HASH__: string | undefined;
const CODE_HASH: string | undefined = typeof __MEMVAULT_CODE_HASH__ === 'string' ? __MEMVAULT_CODE_HASH__ : undefined;

interface CachedConfig {
  key: string;
  config: Config;
}

function configTable(root: string) {
  return kvTable<CachedConfig>(openStateStore(path.join(root, STATE_DIR)), 'config', (raw) => {
    const cached = raw as Partial<CachedConfig> | null;
    return typeof cached?.key === 'string' && typeof cached.config === 'object' && cached.config !== null
      ? (cached as CachedConfig)
      : undefined;
  });
}

/** The key of a config file's bytes under `code` (the code hash), this Node and its time zone data. */
export function configCacheKey(bytes: Uint8Array, code: string): string {
  const hash = createHash('sha256');
  for (const part of [code, process.version, process.versions.tz ?? '', process.versions.icu ?? '']) hash.update(`${part}\u0000`);
  return hash.update(bytes).digest('hex');
}

/**
 * The validated config of the project in `root`, as `loadValidConfig` returns it (same value, same errors), from the
 * cache when the key matches. `code` is the code hash (default: the bundle's; none: no cache).
 *
 * @example
 *   const config = await loadValidConfigCached('/repo'); // the second call reads the cached row only
 */
export async function loadValidConfigCached(root: string, code: string | undefined = CODE_HASH): Promise<Config> {
  if (code === undefined) return (await import('./load.js')).loadValidConfig(root);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(root, CONFIG_FILE));
  } catch {
    // A missing config means every default; it and any other error are `loadValidConfig`'s to answer.
    return (await import('./load.js')).loadValidConfig(root);
  }
  const key = configCacheKey(bytes, code);
  try {
    const cached = configTable(root).get('last');
    if (cached?.key === key) return cached.config;
  } catch {
    // No store to read: validated below.
  }
  // The bytes that were hashed are the ones validated: a config edited meanwhile is never kept under the old key.
  const { ConfigInvalidError, validateConfig } = await import('./load.js');
  const { config, errors } = validateConfig(bytes.toString('utf8'), CONFIG_FILE);
  if (errors.length > 0) throw new ConfigInvalidError(errors);
  try {
    // Kept only when JSON gives back the very same value (it does for every schema field today): a cached read equals a fresh one.
    const roundTrip: unknown = JSON.parse(JSON.stringify(config));
    if (!isDeepStrictEqual(roundTrip, config)) return config;
    configTable(root).set('last', { key, config });
  } catch {
    // Not kept: the next command validates again.
  }
  return config;
}
