import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Finding the vault's files: every `.md` file of each stream, with its size
 * and mtime (what the parse cache compares). At 20,000 memories the walk and
 * the stats take ~150 ms, about as long as reading the parse cache, so a
 * build of a large vault runs the walk on its helper thread (helper.ts)
 * while the main thread reads the cache.
 */

export interface ScannedFile {
  /** `<stream>/<path inside the stream>`, POSIX separators. */
  vaultPath: string;
  size: number;
  mtimeMs: number;
}

/** Folders of a stream (paths inside it) that hold copies, never inputs: not walked. */
export const SKIPPED_FOLDERS = new Set(['history', 'waterfall/history']);

/** Every `.md` file of the named streams (sorted by stream, then path), outside dot folders and `SKIPPED_FOLDERS`. */
export function scanStreams(vaultDir: string, streams: readonly string[]): ScannedFile[] {
  const out: ScannedFile[] = [];
  for (const name of streams) {
    const streamDir = path.join(vaultDir, name);
    if (!existsSync(streamDir)) continue;
    for (const relative of listMarkdownFiles(streamDir, SKIPPED_FOLDERS)) {
      const stat = statSync(path.join(streamDir, relative));
      out.push({ vaultPath: `${name}/${relative}`, size: stat.size, mtimeMs: stat.mtimeMs });
    }
  }
  return out;
}

/** A scan as the build helper (helper.ts) answers it: columns, which cost less to pass between threads than 20,000 objects. */
export interface ScanColumns {
  paths: string[];
  sizes: Float64Array;
  mtimes: Float64Array;
}

export function toColumns(files: readonly ScannedFile[]): ScanColumns {
  return {
    paths: files.map((file) => file.vaultPath),
    sizes: Float64Array.from(files, (file) => file.size),
    mtimes: Float64Array.from(files, (file) => file.mtimeMs),
  };
}

export function fromColumns(columns: ScanColumns): ScannedFile[] {
  return columns.paths.map((vaultPath, i) => ({ vaultPath, size: columns.sizes[i]!, mtimeMs: columns.mtimes[i]! }));
}

/** The `.md` files under `dir` (paths relative to it, sorted), outside dot folders and the `skipped` folders (relative paths). */
export function listMarkdownFiles(dir: string, skipped: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (skipped.has(child)) continue;
        walk(child);
      } else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) out.push(child);
    }
  };
  walk('');
  return out.sort();
}
