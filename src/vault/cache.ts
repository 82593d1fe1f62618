import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic.js';
import type { Diagnostic, Memory, Sentence, Summary } from './model.js';

/**
 * The parse cache, outside git in `.memvault/cache/`. Two levels:
 * - `files.json`: per vault path, the file's size, mtime and SHA-256 and what
 *   parsing it gave (memory metadata, summary metadata, or diagnostics). A file
 *   whose size and mtime are unchanged is not read at all.
 * - `content/<aa>/<sha256>.json`: the parsed body (text and sentences) keyed by
 *   content hash, read only when a rollup needs that file's text.
 * Losing the cache only costs time: everything is rebuilt from the vault.
 */

/** Bump when the shape of cached data or the parser's output changes. */
const CACHE_VERSION = 4;

export type CachedResult =
  | { type: 'memory'; memory: Memory }
  | { type: 'summary'; summary: Summary }
  | { type: 'invalid'; diagnostics: Diagnostic[] };

export interface CacheEntry {
  size: number;
  mtimeMs: number;
  sha256: string;
  result: CachedResult;
}

export interface ParsedContent {
  body: string;
  sentences: Sentence[];
}

interface FilesJson {
  version: number;
  /** Parse results depend on the time zone (a memory's day): a new zone invalidates everything. */
  timezone: string;
  entries: Record<string, CacheEntry>;
}

export class ParseCache {
  private readonly entries: Map<string, CacheEntry>;
  private dirty = false;

  private constructor(
    private readonly dir: string,
    private readonly timezone: string,
    entries: Map<string, CacheEntry>,
  ) {
    this.entries = entries;
  }

  /** Opens the cache in `dir`; a missing, corrupt or outdated cache starts empty. */
  static open(dir: string, timezone: string): ParseCache {
    let entries = new Map<string, CacheEntry>();
    try {
      const json = JSON.parse(readFileSync(path.join(dir, 'files.json'), 'utf8')) as FilesJson;
      if (json.version === CACHE_VERSION && json.timezone === timezone) entries = new Map(Object.entries(json.entries));
    } catch {
      // No cache yet, or unreadable: parse everything.
    }
    return new ParseCache(dir, timezone, entries);
  }

  get(vaultPath: string): CacheEntry | undefined {
    return this.entries.get(vaultPath);
  }

  set(vaultPath: string, entry: CacheEntry): void {
    this.entries.set(vaultPath, entry);
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

  readContent(sha: string): ParsedContent | undefined {
    try {
      return JSON.parse(readFileSync(this.contentPath(sha), 'utf8')) as ParsedContent;
    } catch {
      return undefined;
    }
  }

  writeContent(sha: string, content: ParsedContent): void {
    const file = this.contentPath(sha);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, JSON.stringify(content));
  }

  /** Writes `files.json` if anything changed since it was opened. */
  save(): void {
    if (!this.dirty) return;
    mkdirSync(this.dir, { recursive: true });
    const json: FilesJson = { version: CACHE_VERSION, timezone: this.timezone, entries: Object.fromEntries(this.entries) };
    writeFileAtomic(path.join(this.dir, 'files.json'), JSON.stringify(json));
    this.dirty = false;
  }

  private contentPath(sha: string): string {
    return path.join(this.dir, 'content', sha.slice(0, 2), `${sha}.json`);
  }
}


