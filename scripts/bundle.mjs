#!/usr/bin/env node
/**
 * `npm run build` (after tsc): bundles the compiled CLI into `dist/bin/` with
 * esbuild, which is what `bin` in package.json runs and what the tests,
 * benchmarks and evaluation spawn.
 *
 * Why a bundle: every memvault command is a new Node process, and loading
 * hundreds of small module files (zod alone is ~95, each resolved and stat'ed
 * up the node_modules chain) cost more than the work of a read command. One
 * file per entry plus shared chunks loads in a fraction of that.
 *
 * Entries (dist/bin/<name>.js):
 * - memvault: the `bin`; turns on source maps under MEMVAULT_DEBUG, then loads main;
 * - main: the CLI (commands stay lazily imported: each becomes its own chunk);
 * - build-worker: the build threads' entry, found next to the chunk that
 *   holds build-pool.ts (`new URL('./build-worker.js', import.meta.url)`);
 * - pre-tool-hook: `memvault hook pre-tool` in one file, built apart (no
 *   chunks shared with the CLI), which bin.ts loads for exactly that command.
 *
 * What stays external (loaded from node_modules at run time): better-sqlite3
 * (a native addon) and tinypool (it starts its own worker entry file); they
 * are the release tarball's only dependencies (scripts/pack-release.mjs).
 * fsevents (chokidar's optional macOS addon) is left out altogether.
 *
 * What the code loads on first use through `requireLazy` (src/util/lazy.ts:
 * gray-matter, remark, cli-progress, chrono-node, the tokenizer's encodings,
 * secretlint's package.json; better-sqlite3's JavaScript for the pre-tool hook) is bundled too, each into its own CommonJS file
 * under `dist/bin/vendor/` (`VENDORED` below), loaded only when first used:
 * a command that parses nothing never reads them, and no package is needed
 * from node_modules for them. The ones an edit and a read command load
 * (`CODE_CACHED`) get a V8 code cache beside them (`<file>.v8cache`,
 * `writeCodeCaches`), which `requireLazy` hands to V8.
 *
 * Input is tsc's output (dist/src), so the bundle runs exactly the code tsc
 * checked; tsc's source maps are chained, so the bundle's maps point at src/*.ts.
 *
 * Plain JavaScript: it runs from `prepare` before anything else is compiled.
 */
import { createHash } from 'node:crypto';
import { builtinModules, createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * The tokenizer's encodings' tables (gpt-tokenizer's `bpeRanks` modules, ~200,000 strings each), written as JSON: V8
 * compiles the module's array literals into ~40 MB of RSS per thread that loads them (three in a cold build), where
 * `JSON.parse` of the same array costs ~20 MB and loads ~30 % faster.
 */
const RANKS = ['gpt-tokenizer/cjs/bpeRanks/o200k_base', 'gpt-tokenizer/cjs/bpeRanks/cl100k_base'];

/** The packages as the chunks ask for them (`requireLazy(id)`) → their files under dist/bin, bundled by `bundleVendored`. */
export const VENDORED = Object.fromEntries([
  ...[
    'gray-matter',
    'unified',
    'remark-parse',
    'cli-progress',
    'chrono-node',
    'gpt-tokenizer/cjs/GptEncoding',
    '@secretlint/secretlint-rule-preset-recommend/package.json',
    // Its JavaScript only, for the pre-tool hook (src/citations/cited-by.ts): one file loads in a fraction of the
    // time of its 13 in node_modules. The native addon stays there (EXTERNAL), passed as `nativeBinding`.
    'better-sqlite3',
  ].map((id) => [id, `./vendor/${id.replace(/^@/, '').replace(/[^A-Za-z0-9.-]+/g, '-')}.cjs`]),
  // The tokenizer's tables as JSON (`RANKS`): src/util/tokens.ts.
  ...RANKS.map((id) => [id, `./vendor/${id.replace(/[^A-Za-z0-9.-]+/g, '-')}.json`]),
]);

/** What the bundle leaves to node_modules: what cannot be bundled (a native addon; a worker pool that starts its own entry file). */
export const EXTERNAL = ['better-sqlite3', 'tinypool'];

/** Bundles `dist/src` (tsc's output) in `dir` into `dir/dist/bin`; returns esbuild's result. */
export async function bundle(dir = root) {
  const { build } = await import('esbuild');
  // Written aside, then swapped in with two renames: tests and commands running from dist/bin meanwhile never see it half written.
  const target = path.join(dir, 'dist', 'bin');
  const outdir = path.join(dir, 'dist', `.bin-${process.pid}`);
  rmSync(outdir, { recursive: true, force: true });
  const from = (file) => path.join(dir, 'dist', 'src', file);
  // What the code is: the read commands' config cache (src/config/cached.ts) is keyed on it, so a rebuilt CLI never reuses
  // a config its older schema validated.
  const define = { __MEMVAULT_CODE_HASH__: JSON.stringify(codeHash(dir)), __MEMVAULT_VENDORED__: JSON.stringify(VENDORED) };
  // What both bundles share: ES modules for Node 20.19, the native and optional packages left to node_modules.
  const common = {
    absWorkingDir: dir,
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    entryNames: '[name]',
    external: [...EXTERNAL, 'fsevents'],
    // Bundled CommonJS packages call require() for Node's built-ins, which an ES module lacks.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    // Not minified: an internal error's stack stays readable even without source maps.
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    define,
  };
  const result = await build({
    ...common,
    entryPoints: {
      memvault: from('cli/bin.js'),
      main: from('cli/main.js'),
      'build-worker': from('pipeline/workers/build-worker.js'),
    },
    splitting: true,
    // Chunks sit beside the entries: build-pool's chunk finds ./build-worker.js next to itself.
    chunkNames: '[name]-[hash]',
    // jsonc-parser's `main` is a UMD build whose factory requires its own files at run time (esbuild cannot follow
    // them): its ES build is bundled instead.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  });
  // The pre-tool hook as one file (no chunks shared with the CLI): bin.ts loads it for `memvault hook pre-tool`, which
  // runs before every Read, Edit and Write of a coding agent, where each extra ES module is start-up time.
  const hook = await build({ ...common, entryPoints: { 'pre-tool-hook': from('hooks/pre-tool-main.js') } });
  const vendored = await bundleVendored(build, dir, outdir);
  await writeCodeCaches(dir, outdir);
  // What the bundles hold (for the release's third-party licences, scripts/pack-release.mjs) and what they leave to
  // node_modules (a test keeps that to EXTERNAL): esbuild's own account, not a scan of the output.
  const meta = { bundled: bundledPackages([result, hook, ...vendored]), external: externalImports([result, hook, ...vendored]) };
  writeFileSync(path.join(outdir, 'bundle-meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
  const old = path.join(dir, 'dist', `.bin-old-${process.pid}`);
  if (existsSync(target)) renameSync(target, old);
  renameSync(outdir, target);
  rmSync(old, { recursive: true, force: true });
  return result;
}

/**
 * Each package of `VENDORED` as one CommonJS file (its dependencies inside),
 * written where `VENDORED` says, relative to `outdir`. CommonJS because the
 * code asks for them synchronously (`require`), ES-module-only packages
 * (unified, remark-parse) included: esbuild converts them.
 */
async function bundleVendored(build, dir, outdir) {
  const requireFrom = createRequire(path.join(dir, 'package.json'));
  mkdirSync(path.join(outdir, 'vendor'), { recursive: true });
  for (const id of RANKS) writeFileSync(path.join(outdir, VENDORED[id]), JSON.stringify(requireFrom(id).default));
  return Promise.all(
    Object.entries(VENDORED)
      .filter(([id]) => !RANKS.includes(id))
      .map(([id, file]) =>
        build({
          absWorkingDir: dir,
          stdin: { contents: `module.exports = require(${JSON.stringify(id)});`, resolveDir: dir, sourcefile: `vendor:${id}` },
          outfile: path.join(outdir, file),
          bundle: true,
          platform: 'node',
          format: 'cjs',
          target: 'node20.19',
          legalComments: 'none',
          logLevel: 'warning',
          metafile: true,
        }),
      ),
  );
}

/**
 * The vendored files an edit's build and the session-start hook load (remark and gray-matter for the edited file's
 * first parse, the tokenizer's code), and chrono-node (a read command's dates): each gets a V8 code cache beside it,
 * `<file>.v8cache`, which `requireLazy` (src/util/lazy.ts) hands to V8 so that the code is not compiled again in every
 * process (~20 ms of an edit's first parse). Made by this Node, after running the code on a sample memory, so the functions a parse and a count use are
 * in it (V8 compiles functions on first call); another Node or V8 rejects the cache and compiles as usual.
 */
export const CODE_CACHED = ['unified', 'remark-parse', 'gray-matter', 'gpt-tokenizer/cjs/GptEncoding', 'chrono-node'];

/** A memory as the vault holds them, for the code cache's sample run: frontmatter, headings, a list, a link, code. */
const SAMPLE_MEMORY = [
  '---',
  'date: 2026-11-20T09:15:00+01:00',
  'kind: decision',
  'tags: [perf, build]',
  '---',
  '# Moved the parse cache into SQLite',
  '',
  'We kept **one** state file and dropped `files.json`; see [the doc](docs/state-store.md) and #4231.',
  '',
  '## Why',
  '',
  '- a one-memory edit rewrote 26 MB',
  '- the log grew without bound',
  '  1. nested *item*',
  '',
  '> Measured side by side, alternating.',
  '',
  '```ts',
  'const cache = ParseCache.open(stateDir, timezone);',
  '```',
  '',
].join('\n');

/**
 * Writes `CODE_CACHED`'s code caches into `outdir` (the bundle being made), after a sample parse and count. The source
 * is wrapped as `requireLazy` wraps it when it loads the file (`CODE_CACHE_WRAPPER`, from tsc's output in `dir`).
 */
async function writeCodeCaches(dir, outdir) {
  const lazy = pathToFileURL(path.join(dir, 'dist', 'src', 'util', 'lazy.js')).href;
  const [head, tail] = (await import(lazy)).CODE_CACHE_WRAPPER;
  const scripts = [];
  const load = (id) => {
    const file = path.join(outdir, VENDORED[id]);
    const script = new Script(`${head}${readFileSync(file, 'utf8')}${tail}`, { filename: file });
    const module = { exports: {} };
    script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
    scripts.push({ file, script });
    return module.exports;
  };
  const { unified } = load('unified');
  const remarkParse = load('remark-parse').default;
  const matter = load('gray-matter');
  const { GptEncoding } = load('gpt-tokenizer/cjs/GptEncoding');
  const ranks = JSON.parse(readFileSync(path.join(outdir, VENDORED['gpt-tokenizer/cjs/bpeRanks/o200k_base']), 'utf8'));
  // gray-matter splits only (src/vault/frontmatter.ts gives it engines that parse nothing).
  const { content } = matter(SAMPLE_MEMORY, { engines: { yaml: { parse: () => ({}), stringify: () => '' } } });
  unified().use(remarkParse).freeze().parse(content);
  GptEncoding.getEncodingApi('o200k_base', () => ranks).countTokens(content);
  // A read command's date words (src/read/period-query.ts): ~25 ms of chrono's 750 KB not compiled again.
  load('chrono-node').parse('since last tuesday', { instant: new Date(Date.UTC(2026, 10, 20)), timezone: 0 }, { forwardDate: false });
  for (const { file, script } of scripts) writeFileSync(`${file}.v8cache`, script.createCachedData());
}

/** The imports the bundles leave to run time, but Node's own modules: what an install must provide. */
function externalImports(results) {
  const found = new Set();
  for (const result of results) {
    for (const output of Object.values(result.metafile.outputs)) {
      for (const entry of output.imports) {
        if (entry.external && !entry.path.startsWith('node:') && !builtinModules.includes(entry.path)) found.add(entry.path);
      }
    }
  }
  return [...found].sort();
}

/** The package folders (relative to the working directory, as esbuild names inputs) whose files the bundles hold. */
function bundledPackages(results) {
  const folders = new Set();
  for (const result of results) {
    for (const input of Object.keys(result.metafile.inputs)) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match) folders.add(match[1]);
    }
  }
  return [...folders].sort();
}

/** SHA-256 of every file under `dist/src` (names and bytes, in sorted order) and of package-lock.json (the libraries). */
export function codeHash(dir = root) {
  const hash = createHash('sha256');
  const src = path.join(dir, 'dist', 'src');
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(src, path.join(entry.parentPath ?? entry.path, entry.name)))
    .sort();
  for (const file of files) hash.update(`${file}\u0000`).update(readFileSync(path.join(src, file)));
  const lock = path.join(dir, 'package-lock.json');
  if (existsSync(lock)) hash.update(readFileSync(lock));
  return hash.digest('hex');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await bundle();
