import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The packages the bundle ships beside itself, each in one file
 * (scripts/bundle.mjs puts `VENDORED` here: id → file relative to the chunk);
 * undefined when the code runs from tsc's output or from source, where
 * node_modules has them.
 */
declare const __MEMVAULT_VENDORED__: Record<string, string> | undefined;
const VENDORED: Record<string, string> = typeof __MEMVAULT_VENDORED__ === 'object' ? __MEMVAULT_VENDORED__ : {};
const requireHere = createRequire(import.meta.url);

/**
 * Synchronous, load-on-first-use access to a package. Node ≥ 20.19 can
 * `require` ES modules, so heavy parsers (remark, gray-matter, stopword) cost
 * nothing on a build that finds nothing to parse: a no-change rebuild of a
 * 20,000-memory vault must start fast. In the bundle, the package comes from
 * its bundled file (dist/bin/vendor/), so an install needs no node_modules
 * for it.
 */
export function requireLazy(id: string): unknown {
  const file = VENDORED[id];
  return requireHere(file === undefined ? id : fileURLToPath(new URL(file, import.meta.url)));
}

/** Memoises `load`: the first call loads, later calls return the same value. */
export function lazy<T>(load: () => T): () => T {
  let value: T | undefined;
  let loaded = false;
  return () => {
    if (!loaded) {
      value = load();
      loaded = true;
    }
    return value as T;
  };
}
