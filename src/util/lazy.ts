import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

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
  if (file === undefined) return requireHere(id);
  const at = fileURLToPath(new URL(file, import.meta.url));
  return file.endsWith('.cjs') ? requireCompiled(at) : requireHere(at);
}

/**
 * How a vendored CommonJS file's source is wrapped into a function, as Node does. scripts/bundle.mjs makes the code
 * cache from the same text (it imports this from tsc's output): V8 accepts a cache for the source it was made from only.
 */
export const CODE_CACHE_WRAPPER = ['(function (exports, require, module, __filename, __dirname) { ', '\n});'] as const;

/** The vendored files loaded with their code cache, by path: each runs once per thread, as `require` would. */
const compiled = new Map<string, unknown>();

/**
 * A vendored CommonJS file (one bundled package, dist/bin/vendor/) loaded with the V8 code cache the bundle wrote
 * beside it (`<file>.v8cache`, scripts/bundle.mjs `writeCodeCaches`): V8 then skips compiling what remark, gray-matter
 * and the tokenizer's code ran when the cache was made (~20 ms of an edit's first parse at 20,000 memories). Node 20
 * has no compile cache of its own (`module.enableCompileCache` came in 22.1). A cache of another Node or V8 is
 * rejected by V8, which then compiles the source as usual; without the file, plain `require`.
 */
function requireCompiled(file: string): unknown {
  if (compiled.has(file)) return compiled.get(file);
  let cachedData: Buffer;
  try {
    cachedData = readFileSync(`${file}.v8cache`);
  } catch {
    const required = requireHere(file);
    compiled.set(file, required);
    return required;
  }
  const [head, tail] = CODE_CACHE_WRAPPER;
  const script = new Script(`${head}${readFileSync(file, 'utf8')}${tail}`, { filename: file, cachedData });
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, file: string, dir: string) => void;
  run(module.exports, createRequire(file), module, file, path.dirname(file));
  compiled.set(file, module.exports);
  return module.exports;
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
