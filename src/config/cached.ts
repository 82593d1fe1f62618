import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { CONFIG_FILE, STATE_DIR } from './file.js';
import type { Config } from './schema.js';

/**
 * The validated config for the read side's short commands (search, zoom,
 * context, the session hooks), kept in `.memvault/config-cache.json`.
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
 * and fails with the same errors as `loadValidConfig`. A missing, unreadable
 * or foreign cache file is a miss; a cache that cannot be written costs the
 * next command the full validation, nothing else.
 */

declare const __MEMVAULT_CODE_HASH__: string | undefined;
const CODE_HASH: string | undefined = typeof __MEMVAULT_CODE_HASH__ === 'string' ? __MEMVAULT_CODE_HASH__ : undefined;

export const configCacheFile = (root: string): string => path.join(root, STATE_DIR, 'config-cache.json');

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
 *   const config = await loadValidConfigCached('/repo'); // the second call reads .memvault/config-cache.json only
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
  const file = configCacheFile(root);
  try {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { key?: unknown; config?: Config };
    if (cached.key === key && cached.config) return cached.config;
  } catch {
    // No cache yet, or not ours.
  }
  // The bytes that were hashed are the ones validated: a config edited meanwhile is never kept under the old key.
  const { ConfigInvalidError, validateConfig } = await import('./load.js');
  const { config, errors } = validateConfig(bytes.toString('utf8'), CONFIG_FILE);
  if (errors.length > 0) throw new ConfigInvalidError(errors);
  try {
    const text = JSON.stringify({ key, config });
    // Kept only when JSON gives back the very same value (it does for every schema field today): a cached read equals a fresh one.
    if (!isDeepStrictEqual((JSON.parse(text) as { config: unknown }).config, config)) return config;
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch {
    // Not kept: the next command validates again.
  }
  return config;
}
