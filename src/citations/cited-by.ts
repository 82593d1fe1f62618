import { readFileSync } from 'node:fs';
import path from 'node:path';
// zod/mini, as the config: the pre-tool hook loads this file, and classic zod's size is start-up time.
import * as z from 'zod/mini';

/**
 * The reading side of the cited-by index (`.memvault/citations/cited-by/`),
 * kept apart from the store's writers so that the pre-tool hook loads nothing
 * but this file and zod/mini: per cited path, the memories citing it, in
 * `SHARDS` files by a hash of the path, and `meta.json` naming the repository,
 * the vault and each shard's hash. The hook reads the one or few shards of a
 * file and its folders (a few kilobytes) instead of an index of every citation
 * (3.9 MB at 20,000 citing memories, ~60 ms to parse on a busy machine).
 */

/** Files the index is split into: ~80 entries each at 20,000 citing memories. */
export const SHARDS = 256;

const stateSchema = z.enum(['verified', 'changed', 'moved', 'gone', 'unchecked']);

/** A memory citing a path, as the pre-tool hook lists it. */
export const citedEntrySchema = z.object({
  /** Vault path of the memory. */
  m: z.string(),
  day: z.string(),
  kind: z.string(),
  title: z.string(),
  /** The citation's state and its one-line detail. */
  state: stateSchema,
  detail: z.optional(z.string()),
  /** The symbol the memory names next to the path, in backticks. */
  quote: z.optional(z.string()),
});
export type CitedEntry = z.infer<typeof citedEntrySchema>;
const citedEntriesSchema = z.array(citedEntrySchema);

export const citedMetaSchema = z.object({ repo: z.string(), vault: z.string(), shards: z.record(z.string(), z.string()) });

/** The cited-by index: the repository and vault folder the paths are relative to, and the memories citing each path. */
export interface CitedByIndex {
  /** Top folder of the repository (cited paths are relative to it). */
  repo: string;
  /** The vault folder relative to the project root (memory paths are relative to it). */
  vault: string;
  files: Record<string, CitedEntry[]>;
}

export const citedByDir = (stateDir: string): string => path.join(stateDir, 'citations', 'cited-by');

/** The shard of a cited path: FNV-1a of it, two hex digits. */
export function shardOf(key: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return ((hash >>> 0) % SHARDS).toString(16).padStart(2, '0');
}

/**
 * The memories citing each of the paths `pathsOf(repo)` gives (repository-relative; folders end with `/`), from the
 * last build; undefined when there is no index. Only the entries asked for are validated.
 */
export function readCitedBy(
  stateDir: string,
  pathsOf: (repo: string) => readonly string[],
): { repo: string; vault: string; found: Map<string, CitedEntry[]> } | undefined {
  const dir = citedByDir(stateDir);
  const meta = citedMetaSchema.safeParse(readJson(path.join(dir, 'meta.json')));
  if (!meta.success) return undefined;
  const found = new Map<string, CitedEntry[]>();
  const shards = new Map<string, unknown>();
  for (const key of pathsOf(meta.data.repo)) {
    const shard = shardOf(key);
    if (!meta.data.shards[shard]) continue;
    if (!shards.has(shard)) shards.set(shard, readJson(path.join(dir, `${shard}.json`)));
    const files = shards.get(shard);
    if (!files || typeof files !== 'object' || !Object.hasOwn(files, key)) continue;
    const entries = citedEntriesSchema.safeParse((files as Record<string, unknown>)[key]);
    if (entries.success) found.set(key, entries.data);
  }
  return { repo: meta.data.repo, vault: meta.data.vault, found };
}

export function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
