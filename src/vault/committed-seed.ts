import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ParseCache } from './cache.js';
import { readRecord } from './committed-record.js';
import type { Diagnostic } from './model.js';

const run = promisify(execFile);

/** A file the load found that the parse cache does not know by its size and mtime. */
export interface MissedFile {
  vaultPath: string;
  size: number;
  mtimeMs: number;
}

/** Below this many files unknown to the parse cache, reading them costs less than asking git and reading the record. */
export const MIN_FILES_FOR_RECORD = 64;

export interface SeedResult {
  /** Files taken from the record without reading them (git: committed unchanged, same blob). */
  trusted: number;
  /** Files the record knows but git could not vouch for: read, and parsed only if their SHA-256 differs from the record's. */
  toCheck: number;
  warnings: Diagnostic[];
}

/**
 * Seeds the parse cache from the committed record (committed-record.ts) for
 * `missed` files, before they are read. Call after the files were listed and
 * stat-ed: git looks at them later, so an edit after the stat is either seen
 * by git or gives a newer mtime than the one seeded here (read next load).
 */
export async function seedFromRecord(
  vaultDir: string,
  streams: readonly string[],
  missed: readonly MissedFile[],
  cache: ParseCache,
  timezone: string,
): Promise<SeedResult> {
  // Both git calls run while the record is read: ~50 ms and ~150 ms at 20,000 files.
  const index = gitLines(vaultDir, ['ls-files', '--stage', '-z']);
  const dirty = gitLines(vaultDir, ['diff-files', '--name-only', '--relative', '-z']);
  const record = readRecord(vaultDir, streams, timezone);
  const blobs = new Map<string, string>();
  const indexLines = await index;
  const dirtyLines = await dirty;
  // Outside a git work tree (or without git) nothing is trusted unread.
  const changed = new Set(dirtyLines ?? []);
  for (const line of dirtyLines ? (indexLines ?? []) : []) {
    // `<mode> <blob> <stage>\t<path>`: a path with a stage other than 0 is in a merge conflict, never trusted.
    const tab = line.indexOf('\t');
    const [, blob, stage] = line.slice(0, tab).split(' ');
    if (blob && stage === '0') blobs.set(line.slice(tab + 1), blob);
  }
  let trusted = 0;
  let toCheck = 0;
  for (const file of missed) {
    const entry = record.entries.get(file.vaultPath);
    if (!entry) continue;
    const base = entry.headings
      ? { sha256: entry.sha256, result: entry.result, headings: entry.headings }
      : { sha256: entry.sha256, result: entry.result };
    if (blobs.get(file.vaultPath) === entry.blob && !changed.has(file.vaultPath)) {
      cache.set(file.vaultPath, { ...base, size: file.size, mtimeMs: file.mtimeMs });
      trusted++;
    } else {
      // A size and mtime no stat gives: the load reads the file, and keeps this result if the hash is the same.
      cache.set(file.vaultPath, { ...base, size: -1, mtimeMs: -1 });
      toCheck++;
    }
  }
  return { trusted, toCheck, warnings: record.warnings };
}

async function gitLines(cwd: string, args: string[]): Promise<string[] | undefined> {
  try {
    const { stdout } = await run('git', ['-c', 'core.quotePath=false', ...args], { cwd, maxBuffer: 1 << 30, encoding: 'utf8' });
    return stdout.split('\0').filter((line) => line !== '');
  } catch {
    return undefined;
  }
}
