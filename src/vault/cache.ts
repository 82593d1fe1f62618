import { randomUUID } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { DETECTOR_VERSION } from '../redact/version.js';
import { writeFileAtomic } from '../util/atomic.js';
import type { HeadingSpan } from './markdown.js';
import type { Diagnostic, Memory, Sentence, Summary, SummaryMeta } from './model.js';
import type { MemorySecret } from './secrets-check.js';

/**
 * The parse cache, outside git in `.memvault/cache/`:
 * - `files.json`: per vault path, the file's size, mtime and SHA-256 and what
 *   parsing it gave (memory metadata, summary metadata, or diagnostics). A file
 *   whose size and mtime are unchanged is not read at all. Fields the path or
 *   the hash already say (a memory's path, stream and hash, a summary's path)
 *   are left out on disk: at 20,000 memories every byte of an entry costs
 *   reading and parsing time in every build.
 * - `files.log`: the entries that changed since `files.json` was written, one
 *   JSON line per save. A build that edits a few files appends a few lines
 *   instead of rewriting `files.json`; the log is folded back into it once it
 *   grows past a quarter of its size. Each line names the `files.json` it
 *   belongs to, so a log left by a crash between the two writes is ignored.
 * - `content.pack`: parsed bodies (text and sentences) as JSON records appended
 *   one after the other; entries hold each file's offset and length. It is
 *   read only when a rollup needs that file's text, and rewritten without dead
 *   records when more than half of it is dead. One file instead of one per
 *   memory: creating 20,000 small files costs more than parsing them.
 * Losing the cache only costs time: everything is rebuilt from the vault.
 */

/** Bump when the shape of cached data or the parser's output changes. */
export const CACHE_VERSION = 10;

/** The log is folded into `files.json` when it is larger than this share of it (or than `LOG_MIN_FOLD_BYTES`). */
const LOG_FOLD_RATIO = 0.25;
const LOG_MIN_FOLD_BYTES = 256 * 1024;

export type CachedResult =
  /** `secrets`: what the secret detector found in the file (secrets-check.ts); the loader holds such a memory back. */
  | { type: 'memory'; memory: Memory; secrets?: MemorySecret[] }
  | { type: 'summary'; summary: Summary }
  | { type: 'invalid'; diagnostics: Diagnostic[] };

export interface CacheEntry {
  size: number;
  mtimeMs: number;
  sha256: string;
  result: CachedResult;
  /** Where the parsed body is in `content.pack`: [offset, length]. */
  content?: [number, number];
}

export interface ParsedContent {
  body: string;
  sentences: Sentence[];
  /** Top-level headings of `body`; absent in content parsed before they were recorded. */
  headings?: HeadingSpan[];
}

/** A cache entry as stored on disk (see `encodeEntry`). */
interface StoredEntry {
  size: number;
  mtimeMs: number;
  sha256: string;
  result: StoredResult;
  content?: [number, number];
}

type StoredResult =
  | { type: 'memory'; memory: Omit<Memory, 'path' | 'stream' | 'sha256'>; secrets?: MemorySecret[] }
  | { type: 'summary'; summary: Omit<Summary, 'path' | 'sha256' | 'meta'> & { sha256?: string; meta: StoredMeta } }
  | { type: 'invalid'; diagnostics: Diagnostic[] };

interface FilesJson {
  version: number;
  /** Parse results depend on the time zone (a memory's day): a new zone invalidates everything. */
  timezone: string;
  /** The secret detector's rule set (`DETECTOR_VERSION`): a new one scans every memory again, so warm and cold builds agree. */
  detector?: string;
  /** Names this version of the file; log lines carry it. */
  id: string;
  /** Size `content.pack` had when this file was written: a longer pack was appended to by a build that crashed. */
  packSize: number;
  entries: Record<string, StoredEntry>;
}

/** Summary metadata with its two long lists kept as JSON text (see `LAZY_META_KEYS`). */
type StoredMeta = Omit<SummaryMeta, LazyMetaKey> & { [K in LazyMetaKey]?: string };

/**
 * A daily's source list and dropped items are most of its cache entry (~10 KB
 * of 11), yet a build reads them only for the few summaries it works on. On
 * disk they stay JSON text, and on load they become properties that parse
 * that text the first time they are read.
 */
const LAZY_META_KEYS = ['sources', 'dropped'] as const;
type LazyMetaKey = (typeof LAZY_META_KEYS)[number];

/** One save appended to `files.log`: changed entries (null: forgotten) and the pack size after it. */
interface LogLine {
  base: string;
  packSize: number;
  entries: Record<string, StoredEntry | null>;
}

export class ParseCache {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private packFd: number | undefined;
  /** Paths set or forgotten since the last save. */
  private readonly changed = new Set<string>();
  /** Every entry must be written again (offsets moved, or no `files.json` to log against). */
  private rewrite: boolean;

  private constructor(
    private readonly dir: string,
    private readonly timezone: string,
    private readonly entries: Map<string, CacheEntry>,
    /** Bytes of `content.pack` that entries may point into. */
    private packSize: number,
    /** `id` of the `files.json` on disk, and the sizes of it and of the log. */
    private base: { id: string; bytes: number; logBytes: number } | undefined,
  ) {
    this.rewrite = base === undefined;
  }

  /** Opens the cache in `dir`; a missing, corrupt or outdated cache starts empty. */
  static open(dir: string, timezone: string): ParseCache {
    try {
      const text = readFileSync(path.join(dir, 'files.json'), 'latin1');
      const json = JSON.parse(text) as FilesJson;
      if (json.version === CACHE_VERSION && json.timezone === timezone && json.detector === DETECTOR_VERSION) {
        const entries = new Map<string, CacheEntry>();
        for (const key in json.entries) entries.set(key, decodeEntry(key, json.entries[key]!));
        const log = readLog(dir, json.id);
        for (const line of log.lines) {
          for (const key in line.entries) {
            const stored = line.entries[key];
            if (stored) entries.set(key, decodeEntry(key, stored));
            else entries.delete(key);
          }
        }
        const packSize = log.lines.at(-1)?.packSize ?? json.packSize;
        const packPath = path.join(dir, 'content.pack');
        const actual = fileSize(packPath);
        if (actual >= packSize) {
          // Records past the known size were appended by a build that crashed before saving: drop them.
          if (actual > packSize) truncateSync(packPath, packSize);
          return new ParseCache(dir, timezone, entries, packSize, { id: json.id, bytes: text.length, logBytes: log.validBytes });
        }
      }
    } catch {
      // No cache yet, or unreadable: parse everything.
    }
    return new ParseCache(dir, timezone, new Map(), 0, undefined);
  }

  get(vaultPath: string): CacheEntry | undefined {
    return this.entries.get(vaultPath);
  }

  /** Every entry. */
  values(): IterableIterator<CacheEntry> {
    return this.entries.values();
  }

  /** Records a file's parse result; `content`, when given, is stored in the pack. */
  set(vaultPath: string, entry: Omit<CacheEntry, 'content'>, content?: ParsedContent): void {
    const stored: CacheEntry = { ...entry };
    if (content) {
      const record = Buffer.from(`${JSON.stringify(content)}\n`, 'utf8');
      stored.content = [this.packSize + this.pendingSize, record.length];
      this.pending.push(record);
      this.pendingSize += record.length;
    } else {
      const previous = this.entries.get(vaultPath);
      if (previous?.content && previous.sha256 === entry.sha256) stored.content = previous.content;
    }
    this.entries.set(vaultPath, stored);
    this.changed.add(vaultPath);
  }

  /** Forgets paths that no longer exist. */
  retain(paths: ReadonlySet<string>): void {
    for (const key of this.entries.keys()) {
      if (!paths.has(key)) {
        this.entries.delete(key);
        this.changed.add(key);
      }
    }
  }

  /** The parsed body of a cached file, if the pack has it. */
  readContent(vaultPath: string, sha: string): ParsedContent | undefined {
    const entry = this.entries.get(vaultPath);
    if (!entry?.content || entry.sha256 !== sha) return undefined;
    const [offset, length] = entry.content;
    if (offset + length > this.packSize) return undefined; // still pending: the caller holds it in memory
    try {
      this.packFd ??= openSync(path.join(this.dir, 'content.pack'), 'r');
      const buffer = Buffer.alloc(length);
      readSync(this.packFd, buffer, 0, length, offset);
      return JSON.parse(buffer.toString('utf8')) as ParsedContent;
    } catch {
      return undefined;
    }
  }

  /**
   * Appends new content records to the pack, then records what changed: a
   * line in `files.log`, or a new `files.json` when the log has grown large
   * (or the pack was compacted).
   */
  save(): void {
    if (this.changed.size === 0 && this.pending.length === 0 && !this.rewrite) return;
    this.close();
    mkdirSync(this.dir, { recursive: true });
    const packPath = path.join(this.dir, 'content.pack');
    if (this.pending.length > 0) {
      // A fresh cache starts a fresh pack (an old or foreign one is dropped).
      if (this.packSize === 0) writeFileSync(packPath, '');
      appendFileSync(packPath, Buffer.concat(this.pending));
      this.packSize += this.pendingSize;
      this.pending = [];
      this.pendingSize = 0;
    }
    if (this.compactIfMostlyDead(packPath)) this.rewrite = true;
    if (!this.rewrite && this.base) {
      const line: LogLine = { base: this.base.id, packSize: this.packSize, entries: {} };
      for (const key of [...this.changed].sort()) {
        const entry = this.entries.get(key);
        line.entries[key] = entry ? encodeEntry(key, entry) : null;
      }
      const bytes = Buffer.from(`${asciiJson(line)}\n`, 'latin1');
      const logPath = path.join(this.dir, 'files.log');
      // Appending after a torn line, or to a log this process did not read, would lose lines: write `files.json` instead.
      if (
        fileSize(logPath) === this.base.logBytes &&
        this.base.logBytes + bytes.length <= Math.max(LOG_MIN_FOLD_BYTES, this.base.bytes * LOG_FOLD_RATIO)
      ) {
        appendFileSync(logPath, bytes);
        this.base.logBytes += bytes.length;
        this.changed.clear();
        return;
      }
    }
    const stored: Record<string, StoredEntry> = {};
    for (const [key, entry] of this.entries) stored[key] = encodeEntry(key, entry);
    const json: FilesJson = {
      version: CACHE_VERSION,
      timezone: this.timezone,
      detector: DETECTOR_VERSION,
      id: randomUUID(),
      packSize: this.packSize,
      entries: stored,
    };
    const text = asciiJson(json);
    // `files.json` first: a log left behind names the old id and is ignored, then removed here.
    writeFileAtomic(path.join(this.dir, 'files.json'), text);
    rmSync(path.join(this.dir, 'files.log'), { force: true });
    this.base = { id: json.id, bytes: text.length, logBytes: 0 };
    this.changed.clear();
    this.rewrite = false;
  }

  /** Closes the pack file handle. */
  close(): void {
    if (this.packFd !== undefined) closeSync(this.packFd);
    this.packFd = undefined;
  }

  /** Rewrites the pack without dead records when most of it is dead; true when it did (every entry's offset moved). */
  private compactIfMostlyDead(packPath: string): boolean {
    let live = 0;
    for (const entry of this.entries.values()) if (entry.content) live += entry.content[1];
    if (this.packSize < 1 << 20 || live * 2 > this.packSize) return false;
    const old = readFileSync(packPath);
    const chunks: Buffer[] = [];
    let offset = 0;
    for (const entry of this.entries.values()) {
      if (!entry.content) continue;
      const [start, length] = entry.content;
      chunks.push(old.subarray(start, start + length));
      entry.content = [offset, length];
      offset += length;
    }
    const temp = `${packPath}.tmp`;
    writeFileSync(temp, Buffer.concat(chunks));
    renameSync(temp, packPath);
    this.packSize = offset;
    return true;
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The lines of `files.log` that belong to the `files.json` with `baseId`, up to the first torn or foreign one. */
function readLog(dir: string, baseId: string): { lines: LogLine[]; validBytes: number } {
  const logPath = path.join(dir, 'files.log');
  let text: string;
  try {
    text = readFileSync(logPath, 'latin1');
  } catch {
    return { lines: [], validBytes: 0 };
  }
  const lines: LogLine[] = [];
  let validBytes = 0;
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    if (end < 0) break; // a line cut short by a crash
    let line: LogLine;
    try {
      line = JSON.parse(text.slice(start, end)) as LogLine;
    } catch {
      break;
    }
    if (line.base !== baseId) break;
    lines.push(line);
    start = end + 1;
    validBytes = start;
  }
  // A torn or foreign tail is not trusted: the next save sees the size differ and writes a new `files.json`.
  return { lines, validBytes };
}

/** What is stored for an entry: the result without what its key and hash say. */
function encodeEntry(key: string, entry: CacheEntry): StoredEntry {
  const result = entry.result;
  let stored: StoredResult;
  if (result.type === 'memory') {
    const { path: _path, stream: _stream, sha256: _sha, ...memory } = result.memory;
    stored = { type: 'memory', memory, ...(result.secrets ? { secrets: result.secrets } : {}) };
  } else if (result.type === 'summary') {
    const { path: _path, sha256, meta, ...summary } = result.summary;
    const storedMeta = { ...meta } as unknown as Record<string, unknown>;
    for (const key of LAZY_META_KEYS) if (meta[key] !== undefined) storedMeta[key] = JSON.stringify(meta[key]);
    stored = { type: 'summary', summary: { ...summary, meta: storedMeta as StoredMeta, ...(sha256 === entry.sha256 ? {} : { sha256 }) } };
  } else stored = result;
  return {
    size: entry.size,
    mtimeMs: entry.mtimeMs,
    sha256: entry.sha256,
    result: stored,
    ...(entry.content ? { content: entry.content } : {}),
  };
}

/** Restores what `encodeEntry` left out, in place: the stored objects are fresh from `JSON.parse` and used once. */
function decodeEntry(key: string, stored: StoredEntry): CacheEntry {
  const entry = stored as unknown as CacheEntry;
  const result = entry.result;
  if (result.type === 'memory') {
    result.memory.path = key;
    result.memory.stream = key.slice(0, key.indexOf('/'));
    result.memory.sha256 = stored.sha256;
  } else if (result.type === 'summary') {
    result.summary.path = key;
    result.summary.sha256 ??= stored.sha256;
    for (const name of LAZY_META_KEYS) defineLazyJson(result.summary.meta, name);
  }
  return entry;
}

/** Turns `target[key]`, a JSON text, into a property parsed on first read (then a plain value). */
function defineLazyJson(target: object, key: string): void {
  const text = (target as Record<string, unknown>)[key];
  if (typeof text !== 'string') return;
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get() {
      const value: unknown = JSON.parse(text);
      Object.defineProperty(target, key, { value, configurable: true, enumerable: true, writable: true });
      return value;
    },
    set(value: unknown) {
      Object.defineProperty(target, key, { value, configurable: true, enumerable: true, writable: true });
    },
  });
}

/**
 * JSON with every non-ASCII character escaped: the file then decodes as
 * Latin-1, byte for byte, which is several times faster than UTF-8 decoding
 * of a large file with a few accented names in it.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
