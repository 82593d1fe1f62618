import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';

/**
 * The git index (`.git/index`, formats 2 and 3), read and updated for a few
 * paths at a time. Why not isomorphic-git's `add`/`updateIndex`: they rewrite
 * the index in place (a crash mid-write corrupts it) and ignore git's
 * `index.lock`; this writes the new index to `index.lock` and renames it over
 * `index`, exactly like git, so a killed build leaves either the old or the
 * new index, and a concurrent git command is never overwritten.
 *
 * Entries other than the updated paths are copied byte for byte (staged work
 * of a person stays staged). Optional cache extensions (TREE, UNTR, FSMN,
 * EOIE, IEOT, REUC) are dropped: git rebuilds them; required ones (split or
 * sparse index) make the update refuse with a hint.
 */

export interface IndexEntry {
  /** Repository-relative POSIX path. */
  path: string;
  /** Merge stage: 0 normally, 1–3 for an unmerged path. */
  stage: number;
  /** Blob object id (hex). */
  oid: string;
  /** The entry as stored, up to and excluding the path (62 or 64 bytes). */
  fixed: Buffer;
}

export interface GitIndex {
  version: number;
  entries: IndexEntry[];
  /** Size and mtime of the file it was read from: an equal stamp means the file was not rewritten since. */
  stamp?: string;
  /** Modification time of the index file (ns); an entry whose file is as new or newer may be racily clean. */
  mtimeNs?: bigint;
}

const HEADER = 12;
const FIXED = 62;

/** Reads `.git/index`; a repository without one has an empty index. */
export function readIndex(gitdir: string): GitIndex {
  const file = path.join(gitdir, 'index');
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 2, entries: [], stamp: 'none' };
    throw error;
  }
  let mtimeNs: bigint | undefined;
  try {
    mtimeNs = statSync(file, { bigint: true }).mtimeNs;
  } catch {
    mtimeNs = undefined;
  }
  return { ...parseIndex(data), stamp: stampOf(file), ...(mtimeNs !== undefined ? { mtimeNs } : {}) };
}

/**
 * True when the work-tree file is certainly the entry's content without
 * reading it, by git's own rule: same size, mtime and inode, and not
 * modified in the same instant the index was written (racy git).
 */
export function statMatches(entry: IndexEntry, stat: BigIntStats, index: GitIndex): boolean {
  if (index.mtimeNs === undefined || stat.mtimeNs >= index.mtimeNs) return false;
  const f = entry.fixed;
  const seconds = Number((stat.mtimeNs / 1_000_000_000n) & 0xffffffffn);
  const nanos = Number(stat.mtimeNs % 1_000_000_000n);
  return f.readUInt32BE(8) === seconds && f.readUInt32BE(12) === nanos && f.readUInt32BE(36) === Number(stat.size & 0xffffffffn) && f.readUInt32BE(20) === Number(stat.ino & 0xffffffffn) && f.readUInt32BE(24) === fileMode(stat);
}

function stampOf(file: string): string {
  try {
    const stat = statSync(file, { bigint: true });
    return `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
  } catch {
    return 'none';
  }
}

/** Parses an index file; throws a UserError for formats that cannot be updated safely. */
export function parseIndex(data: Buffer): GitIndex {
  if (data.length < HEADER + 20 || data.toString('latin1', 0, 4) !== 'DIRC') throw new UserError('.git/index is not a git index', 'run `git status` to check the repository', 'git/index');
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) {
    throw new UserError(`.git/index uses format version ${version}, which memvault cannot update`, 'switch it back with `git update-index --index-version 3`, or build with --no-commit', 'git/index-version');
  }
  const count = data.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let offset = HEADER;
  for (let i = 0; i < count; i++) {
    const flags = data.readUInt16BE(offset + 60);
    const extended = version >= 3 && (flags & 0x4000) !== 0;
    const fixedLength = FIXED + (extended ? 2 : 0);
    const nameStart = offset + fixedLength;
    const nameEnd = data.indexOf(0, nameStart);
    if (nameEnd < 0) throw new UserError('.git/index is truncated', 'run `git status` to check the repository', 'git/index');
    entries.push({
      path: data.toString('utf8', nameStart, nameEnd),
      stage: (flags >> 12) & 0x3,
      oid: data.toString('hex', offset + 40, offset + 60),
      fixed: data.subarray(offset, nameStart), // a view: the entries keep the file's buffer alive, no copy
    });
    offset += padded(fixedLength + (nameEnd - nameStart));
  }
  // Extensions: 4-byte signature, 4-byte size, data; the last 20 bytes are the checksum.
  while (offset + 8 <= data.length - 20) {
    const signature = data.toString('latin1', offset, offset + 4);
    const size = data.readUInt32BE(offset + 4);
    if (signature[0]! >= 'a' && signature[0]! <= 'z') {
      throw new UserError(`.git/index uses the \`${signature}\` extension (split or sparse index), which memvault cannot update`, 'disable it (`git config core.splitIndex false && git update-index --no-split-index`), or build with --no-commit', 'git/index-extension');
    }
    offset += 8 + size;
  }
  return { version, entries };
}

/** Entries are padded with 1–8 NUL bytes to a multiple of 8 (formats 2 and 3). */
function padded(length: number): number {
  return (length + 8) & ~7;
}

/** A new stage-0 entry for a file in the work tree, with its stat data so git does not rehash it. */
export function entryFor(repoPath: string, oid: string, stat: BigIntStats): IndexEntry {
  const fixed = Buffer.alloc(FIXED);
  const seconds = (ns: bigint) => Number((ns / 1_000_000_000n) & 0xffffffffn);
  const nanos = (ns: bigint) => Number(ns % 1_000_000_000n);
  fixed.writeUInt32BE(seconds(stat.ctimeNs), 0);
  fixed.writeUInt32BE(nanos(stat.ctimeNs), 4);
  fixed.writeUInt32BE(seconds(stat.mtimeNs), 8);
  fixed.writeUInt32BE(nanos(stat.mtimeNs), 12);
  fixed.writeUInt32BE(Number(stat.dev & 0xffffffffn), 16);
  fixed.writeUInt32BE(Number(stat.ino & 0xffffffffn), 20);
  fixed.writeUInt32BE(fileMode(stat), 24);
  fixed.writeUInt32BE(Number(stat.uid & 0xffffffffn), 28);
  fixed.writeUInt32BE(Number(stat.gid & 0xffffffffn), 32);
  fixed.writeUInt32BE(Number(stat.size & 0xffffffffn), 36);
  Buffer.from(oid, 'hex').copy(fixed, 40);
  fixed.writeUInt16BE(Math.min(Buffer.byteLength(repoPath, 'utf8'), 0xfff), 60);
  return { path: repoPath, stage: 0, oid, fixed };
}

/** `100755` for a file executable by its owner, else `100644` (as git records it). */
export function fileMode(stat: BigIntStats): number {
  return (stat.mode & 0o100n) !== 0n ? 0o100755 : 0o100644;
}

/**
 * Replaces (or removes, for `null`) the stage-0 entries of `updates`,
 * leaving every other entry as it was. Pure; returns a new index.
 */
export function updateEntries(index: GitIndex, updates: ReadonlyMap<string, IndexEntry | null>): GitIndex {
  for (const entry of index.entries) {
    if (entry.stage !== 0 && updates.has(entry.path)) {
      throw new UserError(`\`${entry.path}\` is unmerged in the git index`, 'resolve the conflict (`git add` or `git checkout --ours`) first, or build with --no-commit', 'git/unmerged');
    }
  }
  // The index is sorted already: merge the few new entries in rather than sorting 20,000 again.
  const kept = index.entries.filter((entry) => !updates.has(entry.path));
  const added = [...updates.values()].filter((entry): entry is IndexEntry => entry !== null).sort(compareEntries);
  const entries: IndexEntry[] = [];
  let i = 0;
  for (const entry of added) {
    while (i < kept.length && compareEntries(kept[i]!, entry) < 0) entries.push(kept[i++]!);
    entries.push(entry);
  }
  while (i < kept.length) entries.push(kept[i++]!);
  return { version: index.version, entries };
}

/** Git orders entries by the bytes of their path, then by stage. */
function compareEntries(a: IndexEntry, b: IndexEntry): number {
  return comparePaths(a.path, b.path) || a.stage - b.stage;
}

/** Byte order of the UTF-8 paths; UTF-16 order agrees with it unless a surrogate pair is involved. */
function comparePaths(a: string, b: string): number {
  if (!/[\ud800-\udfff]/.test(a) && !/[\ud800-\udfff]/.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The index file for `index`: header, entries (padded), no extensions, SHA-1 trailer. */
export function serializeIndex(index: GitIndex): Buffer {
  let size = HEADER + 20;
  for (const entry of index.entries) size += padded(entry.fixed.length + Buffer.byteLength(entry.path, 'utf8'));
  const out = Buffer.alloc(size); // zero-filled: the padding is already there
  out.write('DIRC', 0, 'latin1');
  out.writeUInt32BE(index.version, 4);
  out.writeUInt32BE(index.entries.length, 8);
  let offset = HEADER;
  for (const entry of index.entries) {
    entry.fixed.copy(out, offset);
    const written = out.write(entry.path, offset + entry.fixed.length, 'utf8');
    offset += padded(entry.fixed.length + written);
  }
  createHash('sha1').update(out.subarray(0, offset)).digest().copy(out, offset);
  return out;
}

/**
 * Applies `updates` to the index file under git's lock: takes `index.lock`,
 * reads the index again unless `known` was read from the same file, and
 * writes the result (see `writeIndex`).
 */
export function updateIndexFile(gitdir: string, updates: ReadonlyMap<string, IndexEntry | null>, known?: GitIndex): void {
  writeIndex(gitdir, (current) => updateEntries(known && known.stamp === current() ? known : readIndex(gitdir), updates));
}

/**
 * Writes the index the way git does: the new content goes to `index.lock`
 * (created exclusively: a running git command holding it makes this refuse),
 * then replaces `index` by a rename. `index` may be a function of the
 * current file's stamp, called once the lock is held.
 */
export function writeIndex(gitdir: string, index: GitIndex | ((currentStamp: () => string) => GitIndex)): void {
  const lockPath = path.join(gitdir, 'index.lock');
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UserError('the git index is locked (.git/index.lock exists): another git command is running', 'wait for it to finish; if no git command is running, delete .git/index.lock and build again', 'git/index-locked');
    }
    throw error;
  }
  try {
    writeSync(fd, serializeIndex(typeof index === 'function' ? index(() => stampOf(path.join(gitdir, 'index'))) : index));
  } catch (error) {
    closeSync(fd);
    rmSync(lockPath, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(lockPath, path.join(gitdir, 'index'));
}
