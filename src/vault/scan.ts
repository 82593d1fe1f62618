import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from './model.js';
import { diagnostic } from '../messages/diagnostic.js';

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
  /** Set for what is not read: a symbolic link, a FIFO, socket or device where a `.md` file would be, a name not UTF-8. */
  special?: Special;
}

/**
 * What a walk finds and does not read. `bad-name`: a `.md` file or a folder whose name is not UTF-8 (`caf\xe9.md` in
 * latin1): Node names it with U+FFFD and cannot open it by that name, so it is reported, not silently missed.
 */
export type Special = 'symlink' | 'not-a-file' | 'bad-name';

/** Largest memory or summary file read, in bytes; a larger file is reported (`memory/too-large`) and not read. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** Folders of a stream (paths inside it) that hold copies, never inputs: not walked. */
export const SKIPPED_FOLDERS = new Set(['history', 'waterfall/history']);

/** The streams of a vault, sorted: those named in the config and the folders found in the vault (dot folders aside). */
export function streamFolders(vaultDir: string, configured: readonly string[]): string[] {
  const names = new Set(configured);
  if (existsSync(vaultDir)) {
    for (const entry of readdirSync(vaultDir, { withFileTypes: true }))
      if (entry.isDirectory() && !entry.name.startsWith('.')) names.add(entry.name);
  }
  return [...names].sort();
}

/**
 * Every `.md` file of the named streams (sorted by stream, then path), outside
 * dot folders and `SKIPPED_FOLDERS`, and what is skipped there (`special`):
 * symbolic links (never followed, so nothing outside the repository is read)
 * and FIFOs, sockets or devices with a `.md` name.
 */
export function scanStreams(vaultDir: string, streams: readonly string[]): ScannedFile[] {
  const out: ScannedFile[] = [];
  for (const name of streams) {
    const streamDir = path.join(vaultDir, name);
    const stat = lstatOrUndefined(streamDir);
    if (!stat) continue;
    if (!stat.isDirectory()) {
      // A stream folder that is a link (`main -> /etc`) is reported at a path inside it, so the report has a stream.
      if (stat.isSymbolicLink()) out.push({ vaultPath: `${name}/`, size: 0, mtimeMs: 0, special: 'symlink' });
      continue;
    }
    // The stat's path by concatenation, not `path.join`: normalising 20,000 paths was ~25 ms of a ~100 ms walk, and a
    // walk's relative paths are normal already (names from readdir joined by `/`, never `.` or `..`: dot names are
    // skipped). Windows accepts `/` between the parts.
    const prefix = `${streamDir}/`;
    for (const entry of walkStream(streamDir, SKIPPED_FOLDERS)) {
      const vaultPath = `${name}/${entry.relative}`;
      if (entry.special) {
        out.push({ vaultPath, size: 0, mtimeMs: 0, special: entry.special });
        continue;
      }
      // Removed since the walk listed it: the next build sees it gone.
      const fileStat = lstatOrUndefined(prefix + entry.relative);
      if (fileStat) out.push({ vaultPath, size: fileStat.size, mtimeMs: fileStat.mtimeMs });
    }
  }
  return out;
}

/** A scan as the build helper (helper.ts) answers it: columns, which cost less to pass between threads than 20,000 objects. */
export interface ScanColumns {
  paths: string[];
  sizes: Float64Array;
  mtimes: Float64Array;
  /** Index → `special` of the few entries that have one. */
  special: [number, Special][];
}

export function toColumns(files: readonly ScannedFile[]): ScanColumns {
  const special: ScanColumns['special'] = [];
  files.forEach((file, i) => file.special && special.push([i, file.special]));
  return {
    paths: files.map((file) => file.vaultPath),
    sizes: Float64Array.from(files, (file) => file.size),
    mtimes: Float64Array.from(files, (file) => file.mtimeMs),
    special,
  };
}

export function fromColumns(columns: ScanColumns): ScannedFile[] {
  const files: ScannedFile[] = columns.paths.map((vaultPath, i) => ({ vaultPath, size: columns.sizes[i]!, mtimeMs: columns.mtimes[i]! }));
  for (const [i, special] of columns.special ?? []) files[i]!.special = special;
  return files;
}

/** The `.md` files under `dir` (paths relative to it, sorted), outside dot folders and the `skipped` folders (relative paths). */
export function listMarkdownFiles(dir: string, skipped: ReadonlySet<string> = new Set()): string[] {
  return walkStream(dir, skipped)
    .filter((entry) => !entry.special)
    .map((entry) => entry.relative);
}

/**
 * The `.md` regular files under `dir` and, marked `special`, the links and
 * non-files that would have been read: any symbolic link named `*.md` or
 * without an extension (it may stand for a folder), and FIFOs, sockets and
 * devices named `*.md`. Sorted; links are never followed. A folder that
 * cannot be listed is left out (its files are not reported one by one).
 */
export function walkStream(dir: string, skipped: ReadonlySet<string> = new Set()): { relative: string; special?: Special }[] {
  const out: { relative: string; special?: Special }[] = [];
  const pending = [''];
  // A stack, not recursion: folder depth is whatever the vault holds.
  while (pending.length > 0) {
    const relative = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(dir, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      const markdown = entry.name.toLowerCase().endsWith('.md');
      // A name that is not UTF-8 comes with U+FFFD in it and names no file: reported (a whole folder of memories, too).
      if ((markdown || entry.isDirectory()) && entry.name.includes('\uFFFD') && !existsSync(path.join(dir, child))) {
        out.push({ relative: child, special: 'bad-name' });
        continue;
      }
      if (entry.isDirectory()) {
        if (!skipped.has(child)) pending.push(child);
      } else if (entry.isFile()) {
        if (markdown) out.push({ relative: child });
      } else if (entry.isSymbolicLink()) {
        if (markdown || !entry.name.includes('.')) out.push({ relative: child, special: 'symlink' });
      } else if (markdown) out.push({ relative: child, special: 'not-a-file' });
    }
  }
  return out.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
}

/** The diagnostic for a `special` scan entry: reported (info), never read. */
export function specialDiagnostic(vaultPath: string, special: Special): Diagnostic {
  if (special === 'bad-name') {
    return diagnostic('memory/file-name', { path: vaultPath, line: 1, column: 1 }, 'file name is not UTF-8: the file is not read');
  }
  if (special === 'symlink') {
    return diagnostic('memory/symlink-skipped', { path: vaultPath, line: 1, column: 1 }, 'symbolic link not followed');
  }
  return diagnostic('memory/not-a-file', { path: vaultPath, line: 1, column: 1 }, 'not a regular file (a FIFO, socket or device)');
}

export type ReadResult = { ok: true; bytes: Buffer } | { ok: false; diagnostic: Diagnostic };

/**
 * Reads one vault file safely: never through a symbolic link (the last part
 * is opened with `O_NOFOLLOW`; a folder above it must resolve inside the
 * vault), never a FIFO (opened non-blocking, checked with fstat), never more
 * than `MAX_FILE_BYTES`. What cannot be read is a diagnostic, not an error.
 * `insideVault` caches the folder checks of one load.
 */
export function readVaultFile(vaultDir: string, vaultPath: string, insideVault: Map<string, boolean> = new Map()): ReadResult {
  const file = path.join(vaultDir, vaultPath);
  const fail = (reason: string, rule: 'memory/unreadable' | 'memory/too-large', hint?: string): ReadResult => ({
    ok: false,
    diagnostic: diagnostic(rule, { path: vaultPath, line: 1, column: 1 }, reason, hint ? { hint } : {}),
  });
  const folder = path.dirname(file);
  let inside = insideVault.get(folder);
  if (inside === undefined) {
    try {
      const root = realpathSync.native(vaultDir);
      const real = realpathSync.native(folder);
      inside = real === root || real.startsWith(`${root}${path.sep}`);
    } catch {
      inside = false;
    }
    insideVault.set(folder, inside);
  }
  if (!inside) return { ok: false, diagnostic: specialDiagnostic(vaultPath, 'symlink') };
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ELOOP' || code === 'EMLINK') return { ok: false, diagnostic: specialDiagnostic(vaultPath, 'symlink') };
    return fail(`cannot read the file (${code})`, 'memory/unreadable');
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, diagnostic: specialDiagnostic(vaultPath, 'not-a-file') };
    if (stat.size > MAX_FILE_BYTES) return fail(tooLarge(stat.size), 'memory/too-large');
    // Read to the end, not to the size fstat gave: the file may have grown since; stop one byte past the limit.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, MAX_FILE_BYTES + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > MAX_FILE_BYTES) return fail(tooLarge(total), 'memory/too-large');
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return fail(
      `cannot read the file (${code})`,
      'memory/unreadable',
      'check the file and the disk; the rest of the vault builds without it',
    );
  } finally {
    closeSync(fd);
  }
}

function tooLarge(size: number): string {
  return `file too large: ${size > MAX_FILE_BYTES ? `over ${MAX_FILE_BYTES}` : size} bytes (limit ${MAX_FILE_BYTES} bytes, 1 MiB)`;
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
