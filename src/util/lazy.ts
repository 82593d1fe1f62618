import { createRequire } from 'node:module';

/**
 * Synchronous, load-on-first-use access to a package. Node ≥ 20.19 can
 * `require` ES modules, so heavy parsers (remark, gray-matter, stopword) cost
 * nothing on a build that finds nothing to parse: a no-change rebuild of a
 * 20,000-memory vault must start fast.
 */
export const requireLazy = createRequire(import.meta.url);

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
