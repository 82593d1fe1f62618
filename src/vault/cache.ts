import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic.js';
import type { Diagnostic, Memory, Sentence, Summary } from './model.js';

/**
 * The parse cache, outside git in `.memvault/cache/`:
 * - `files.json`: per vault path, the file's size, mtime and SHA-256 and what
 *   parsing it gave (memory metadata, summary metadata, or diagnostics). A file
 *   whose size and mtime are unchanged is not read at all.
 * - `content.pack`: parsed bodies (text and sentences) as JSON records appended
 *   one after the other; `files.json` holds each file's offset and length. It is
 *   read only when a rollup needs that file's text, and rewritten without dead
 *   records when more than half of it is dead. One file instead of one per
 *   memory: creating 20,000 small files costs more than parsing them.
 * Losing the cache only costs time: everything is rebuilt from the vault.
 */

/** Bump when the shape of cached data or the parser's output changes. */
const CACHE_VERSION = 5;

export type CachedResult =
  | { type: 'memory'; memory: Memory }
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
}

interface FilesJson {
  version: number;
  /** Parse results depend on the time zone (a memory's day): a new zone invalidates everything. */
  timezone: string;
  /** Size `content.pack` had when this file was written: a longer pack was appended to by a build that crashed. */
  packSize: number;
  entries: Record<string, CacheEntry>;
}

export class ParseCache {
  private dirty = false;
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private packFd: number | undefined;

  private constructor(
    private readonly dir: string,
    private readonly timezone: string,
    private readonly entries: Map<string, CacheEntry>,
    /** Bytes of `content.pack` that entries may point into. */
    private packSize: number,
  ) {}

  /** Opens the cache in `dir`; a missing, corrupt or outdated cache starts empty. */
  static open(dir: string, timezone: string): ParseCache {
    try {
      const json = JSON.parse(readFileSync(path.join(dir, 'files.json'), 'utf8')) as FilesJson;
      const packPath = path.join(dir, 'content.pack');
      const actual = statSync(packPath).size;
      if (json.version === CACHE_VERSION && json.timezone === timezone && actual >= json.packSize) {
        // Records past the known size were appended by a build that crashed before saving: drop them.
        if (actual > json.packSize) truncateSync(packPath, json.packSize);
        return new ParseCache(dir, timezone, new Map(Object.entries(json.entries)), json.packSize);
      }
    } catch {
      // No cache yet, or unreadable: parse everything.
    }
    return new ParseCache(dir, timezone, new Map(), 0);
  }

  get(vaultPath: string): CacheEntry | undefined {
    return this.entries.get(vaultPath);
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
    this.dirty = true;
  }

  /** Forgets paths that no longer exist. */
  retain(paths: ReadonlySet<string>): void {
    for (const key of this.entries.keys()) {
      if (!paths.has(key)) {
        this.entries.delete(key);
        this.dirty = true;
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

  /** Appends new content records to the pack, then writes `files.json` if anything changed. */
  save(): void {
    if (!this.dirty && this.pending.length === 0) return;
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
    this.compactIfMostlyDead(packPath);
    const json: FilesJson = { version: CACHE_VERSION, timezone: this.timezone, packSize: this.packSize, entries: Object.fromEntries(this.entries) };
    writeFileAtomic(path.join(this.dir, 'files.json'), JSON.stringify(json));
    this.dirty = false;
  }

  /** Closes the pack file handle. */
  close(): void {
    if (this.packFd !== undefined) closeSync(this.packFd);
    this.packFd = undefined;
  }

  private compactIfMostlyDead(packPath: string): void {
    let live = 0;
    for (const entry of this.entries.values()) if (entry.content) live += entry.content[1];
    if (this.packSize < 1 << 20 || live * 2 > this.packSize) return;
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
  }
}
