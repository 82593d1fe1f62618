import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadValidConfigCached } from '../config/cached.js';
import type { Config } from '../config/schema.js';
import { noSuchStream } from './stream-error.js';
import { cacheStamp, saveParseCache } from './cache-save.js';
import type { LoadedVault, LoadOptions } from '../load/load.js';
import { vaultLoadOptions } from '../load/options.js';
import type { Memory, StreamState, Summary } from '../vault/model.js';
import { countTokens } from '../util/tokens.js';
import { sha256 } from '../util/hash.js';
import { frontmatterBody } from '../vault/frontmatter.js';
import { readVaultFile, type ScannedFile } from '../vault/scan.js';

/**
 * The read side's view of a vault: the config and the loaded vault, opened
 * read-only. Nothing in the vault is written. The parse cache is saved when
 * the load changed it and no build holds the lock (`saveParseCache`).
 */
export interface ReadVault {
  root: string;
  config: Config;
  /** Absolute path of the vault folder. */
  vaultDir: string;
  loaded: LoadedVault;
}

/**
 * Loads the config and the vault under `root` for reading (zoom, search, context). `walked`: the vault's files as the
 * caller found them just before (`scanVault`), so the load does not walk the vault again; with `partial`, those files
 * are all the load holds (the session-start hook's few, hooks/start-parts.ts).
 *
 * @example
 *   const vault = await openVault('/repo');
 *   const body = memoryBody(vault, vault.loaded.state.streams.get('main')!.memories[0]!);
 */
export async function openVault(root: string, walked?: { scanned: readonly ScannedFile[]; partial?: boolean }): Promise<ReadVault> {
  const config = await readConfig(root);
  const vaultDir = path.resolve(root, config.vault);
  const partial = walked?.partial === true;
  const options = {
    ...vaultLoadOptions(root, config),
    ...(walked ? { scanned: walked.scanned } : {}),
    ...(partial ? { partial, useRecord: false } : {}),
  };
  const before = cacheStamp(options.stateDir);
  const loaded = await loadFiles(options);
  // What the load parsed again (memories edited since the last build) is kept, so the next read command does not parse
  // it too; a load of some files only (`partial`: the session-start hook's) keeps nothing.
  if (loaded.cache.modified && !partial) await saveParseCache(root, options.stateDir, loaded, before);
  // A memory holding a secret is held back by the loader (in no stream): it is never shown, indexed or put in a context.
  return { root, config, vaultDir, loaded };
}

/**
 * The loader and its thread pool are loaded here, not with the module: a search that finds its index never loads the
 * vault. A partial load (the session-start hook's few files, their markdown left unparsed) starts no thread: it does
 * without the pool's module and tinypool's (~10 ms of the hook's start).
 */
async function loadFiles(options: LoadOptions): Promise<LoadedVault> {
  if (options.partial) return (await import('../load/load.js')).loadVault(options);
  return (await import('../pipeline/workers/build-pool.js')).loadVaultWithWorkers(options);
}

/**
 * The project's config for a read command: what `loadValidConfig` returns (an invalid one lists its lines and exits 1),
 * kept in `.memvault/config-cache.json` by the bundled CLI so a short command does not load the YAML parser and schema.
 */
export const readConfig = (root: string): Promise<Config> => loadValidConfigCached(root);

/** The stream a read command works on: `--stream`, else the first stream of the config (as `memvault add`), else the only one found. */
export function pickStream(vault: ReadVault, name: string | undefined): StreamState {
  const streams = vault.loaded.state.streams;
  const wanted = name ?? Object.keys(vault.config.streams)[0] ?? [...streams.keys()][0];
  const stream = wanted === undefined ? undefined : streams.get(wanted);
  if (!stream) throw noSuchStream(wanted ?? '', [...streams.keys()]);
  return stream;
}

/**
 * Markdown body of a memory (frontmatter removed), from the parse cache when it has it, else read from the file. The
 * read side needs the text only: the content store would also parse its markdown (sentences, headings, for the build's
 * summaries), which was most of a warm context's time when its hits were memories the pack did not hold.
 */
export function memoryBody(vault: ReadVault, memory: Memory): string {
  const known = vault.loaded.cache.readContent(memory.path, memory.sha256);
  if (known) return known.body;
  const read = readVaultFile(vault.vaultDir, memory.path);
  // A file that changed since the load: the content store says so (`vault/changed`), as before.
  if (!read.ok || sha256(read.bytes) !== memory.sha256) return vault.loaded.content.memory(memory).body;
  return frontmatterBody(Buffer.from(read.bytes).toString('utf8')).trim();
}

/** Markdown body of a generated summary: from the parse cache, else read from the file (its text only, as for a memory). */
export function summaryBody(vault: ReadVault, summary: Summary): string {
  const known = vault.loaded.cache.readContent(summary.path, summary.sha256);
  if (known) return known.body;
  let text: string;
  try {
    text = readFileSync(path.join(vault.vaultDir, summary.path), 'utf8');
  } catch {
    return vault.loaded.content.summary(summary).body;
  }
  return frontmatterBody(text).trim();
}

/** Tokens of `text` with the configured tokenizer: every budget of the read side is counted with it. */
export function tokensOf(vault: ReadVault, text: string): number {
  return countTokens(text, vault.config.tokenizer);
}
