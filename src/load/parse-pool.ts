import type { FileRole } from '../vault/paths.js';
import { parseVaultFile, type ParsedFile } from './parse-file.js';
import type { ScannedFile } from '../vault/scan.js';

/**
 * Parsing many files. Markdown parsing (remark) is the main cost of a cold
 * build's load, ~2 ms per memory: from `MIN_FILES_FOR_WORKERS` files on, a
 * `ParsePool` (the build's worker threads, pipeline/build-pool.ts) parses
 * them on all cores; below that, starting workers (~150 ms) is not worth it.
 */
export const MIN_FILES_FOR_WORKERS = 300;

export interface FileToParse {
  vaultPath: string;
  role: FileRole;
  bytes: Uint8Array;
  /** False: a memory's markdown is left unparsed (see `parseVaultFile`); its body is parsed when a stage reads it. */
  markdown?: boolean;
}

/** How many of the files to parse are parsed so far: called at the start, then as the work goes on. */
export type ParseProgress = (done: number, total: number) => void;

/**
 * Hands on parse results as they are ready, in the order of the files: `offset` is the index in `files` of the first of
 * `parsed`. The caller keeps what it needs and lets go of the rest, so a cold build never holds every parsed body at once.
 */
export type OnParsed = (offset: number, parsed: ParsedFile[]) => void;

/** Threads that parse files: results in the order of `files`, as `parseVaultFile` gives them, a chunk at a time. */
export interface ParsePool {
  parse(files: readonly FileToParse[], timezone: string, onParsed: OnParsed, onProgress?: ParseProgress): Promise<void>;
  /** Starts the threads before the files are all read: they load remark meanwhile. */
  start(): void;
  /** `scanStreams` on a thread while the caller reads the parse cache (a large vault); undefined when there is no thread for it. */
  scan(vaultDir: string, streams: readonly string[]): Promise<ScannedFile[]> | undefined;
}

/** Whether `count` files are parsed on `pool`. */
export function usesParseWorkers(count: number, pool: ParsePool | undefined): pool is ParsePool {
  return pool !== undefined && count >= MIN_FILES_FOR_WORKERS;
}

/** Files between two progress reports of an in-process parse. */
const PROGRESS_STEP = 64;

/** Parses `files` (on `pool` when they are many), handing the results to `onParsed` in file order. */
export async function parseFiles(
  files: readonly FileToParse[],
  timezone: string,
  onParsed: OnParsed,
  pool?: ParsePool,
  onProgress?: ParseProgress,
): Promise<void> {
  if (files.length === 0) return;
  if (usesParseWorkers(files.length, pool)) return pool.parse(files, timezone, onParsed, onProgress);
  onProgress?.(0, files.length);
  files.forEach((file, i) => {
    onParsed(i, [parseVaultFile(file.bytes, file.vaultPath, file.role, timezone, file.markdown)]);
    if ((i + 1) % PROGRESS_STEP === 0 || i + 1 === files.length) onProgress?.(i + 1, files.length);
  });
}
