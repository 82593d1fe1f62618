import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';

/**
 * Reading an input file of `ingest` (or the transcript a hook names) with
 * bounds: only a regular file is opened (a FIFO would block forever, a device
 * such as `/dev/zero` never ends), and never more than a size limit is read.
 * A JSON Lines transcript is streamed line by line (`forEachLine`), so memory
 * stays bounded whatever its size; other formats are whole JSON or markdown
 * documents, read at once up to `MAX_DOCUMENT_BYTES`. Errors name the file
 * and what is wrong, never its content.
 */

/** Largest JSON Lines transcript read (streamed, so this bounds time, not memory). */
export const MAX_STREAMED_BYTES = 2 * 1024 * 1024 * 1024;
/** Largest whole-document input (JSON, markdown, text): these are parsed in one piece. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
/** Longest line of a JSON Lines transcript. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** Why a file cannot be read; `reason` never quotes the file's content. */
export class InputReadError extends Error {
  constructor(
    readonly reason: string,
    readonly hint: string,
  ) {
    super(reason);
    this.name = 'InputReadError';
  }
}

const SIZE_HINT = 'split the file, or ingest its sessions separately';

/** `mib(64 * 1024 * 1024)` → `64 MiB`. */
export function mib(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024)).toLocaleString('en-US')} MiB`;
}

function kindOf(stat: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}) {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** An open regular file: its descriptor, size and modification time. */
export interface OpenedInput {
  fd: number;
  size: number;
  mtime: Date;
}

/**
 * Opens `file` for reading if it is a regular file of at most `limit` bytes.
 * The type is checked before opening (`stat`) and again on the descriptor
 * (`fstat`, so a file swapped in between is caught); the open is non-blocking,
 * so even a FIFO swapped in never blocks. Close it with `closeSync(fd)`.
 */
export function openRegularFile(file: string, limit: number): OpenedInput {
  let fd: number;
  try {
    const before = statSync(file);
    if (!before.isFile()) throw new InputReadError(`is ${kindOf(before)}, not a regular file`, 'pass transcript files');
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (error instanceof InputReadError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'file not found' : code === 'EACCES' ? 'permission denied' : `cannot be read (${code ?? 'error'})`;
    throw new InputReadError(reason, 'pass transcript files (a folder: `memvault ingest folder/*.jsonl`)');
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new InputReadError(`is ${kindOf(stat)}, not a regular file`, 'pass transcript files');
    if (stat.size > limit) throw tooLarge(stat.size, limit);
    return { fd, size: stat.size, mtime: stat.mtime };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function tooLarge(size: number, limit: number): InputReadError {
  return new InputReadError(`file too large: ${size.toLocaleString('en-US')} bytes (limit ${mib(limit)})`, SIZE_HINT);
}

/** Reads a whole open file, stopping with an error past `limit` bytes (it may have grown since `fstat`). */
export function readAll(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limit + 1 - total));
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    total += n;
    if (total > limit) throw tooLarge(total, limit);
  }
  return Buffer.concat(chunks, total);
}

/** Hex SHA-256 of an open file, read in chunks from its start (at most `limit` bytes). */
export function hashFile(fd: number, limit: number): string {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, position);
    if (n === 0) break;
    hash.update(chunk.subarray(0, n));
    position += n;
    if (position > limit) throw tooLarge(position, limit);
  }
  return hash.digest('hex');
}

/** What `forEachLine` read: the SHA-256 of exactly those bytes, and whether they ended with a newline. */
export interface LinesRead {
  sha256: string;
  bytes: number;
  endsWithNewline: boolean;
}

/**
 * Calls `onLine(bytes, lineNo)` for each line of an open file (without its
 * `\n`), from its start, hashing the bytes as they pass: at most one chunk
 * and one line are in memory at a time.
 */
export function forEachLine(fd: number, limit: number, onLine: (line: Buffer, lineNo: number) => void): LinesRead {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let position = 0;
  let lineNo = 0;
  let last = -1;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, position);
    if (n === 0) break;
    const data = chunk.subarray(0, n);
    hash.update(data);
    position += n;
    if (position > limit) throw tooLarge(position, limit);
    last = data[n - 1]!;
    let start = 0;
    for (;;) {
      const newline = data.indexOf(10, start);
      if (newline === -1) break;
      const piece = data.subarray(start, newline);
      lineNo++;
      if (carryBytes > 0) {
        onLine(Buffer.concat([...carry, piece], carryBytes + piece.length), lineNo);
        carry = [];
        carryBytes = 0;
      } else onLine(piece, lineNo);
      start = newline + 1;
    }
    if (start < n) {
      // The rest of the chunk starts a line that continues in the next one: copied, since `chunk` is reused.
      carry.push(Buffer.from(data.subarray(start)));
      carryBytes += n - start;
      if (carryBytes > MAX_LINE_BYTES)
        throw new InputReadError(`line ${lineNo + 1} is longer than ${mib(MAX_LINE_BYTES)}`, 'is this a JSON Lines transcript?');
    }
  }
  if (carryBytes > 0) onLine(Buffer.concat(carry, carryBytes), ++lineNo);
  return { sha256: hash.digest('hex'), bytes: position, endsWithNewline: last === 10 };
}
