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
import { UserError } from '../util/errors.js';
import { asciiJson, decodeEntry, encodeEntry, hasLazyLists, type ListsRecord, listsOf, type StoredEntry } from './cache-codec.js';
import type { HeadingSpan } from './markdown.js';
import type { Diagnostic, Memory, Sentence, Summary } from './model.js';
import type { MemorySecret } from './secrets-check.js';

/**
 * The parse cache, outside git in `.memvault/cache/`:
 * - `files.json`: per vault path, the file's size, mtime and SHA-256 and what
 *   parsing it gave (memory metadata, summary metadata, or diagnostics). A file
 *   whose size and mtime are unchanged is not read at all. Every build reads
 *   all of it, so it holds only what planning needs (cache-codec.ts).
 * - `files.log`: the entries that changed since `files.json` was written, one
 *   JSON line per save. A build that edits a few files appends a few lines
 *   instead of rewriting `files.json`; the log is folded back into it once it
 *   grows past a quarter of its size. Each line names the `files.json` it
 *   belongs to, so a log left by a crash between the two writes is ignored.
 * - `content.pack`: parsed bodies (text and sentences), and summaries' source
 *   lists and dropped items, as JSON records appended one after the other;
 *   entries hold their offset and length. A record is read only when a stage
 *   needs that body or list, and the pack is rewritten without dead records
 *   when more than half of it is dead. One file instead of one per memory:
 *   creating 20,000 small files costs more than parsing them.
 * Losing the cache only costs time: everything is rebuilt from the vault.
 */

/** Bump when the shape of cached data or the parser's output changes. */
export const CACHE_VERSION = 15; // 15: memories carry `citations`

/** The log is folded into `files.json` when it is larger than this share of it (or than `LOG_MIN_FOLD_BYTES`). */
const LOG_FOLD_RATIO = 0.25;
const LOG_MIN_FOLD_BYTES = 256 * 1024;

export type CachedResult =
  /** `secrets`: what the secret detector found in the file (secrets-check.ts); the loader holds such a memory back. */
  | { type: 'memory'; memory: Memory; secrets?: MemorySecret[] }
  | { type: 'summary'; summary: Summary }
  | { type: 'invalid'; diagnostics: Diagnostic[] };

/** A record's place in `content.pack`: [offset, length]. */
export type PackRange = [number, number];

export interface CacheEntry {
  size: number;
  mtimeMs: number;
  sha256: string;
  result: CachedResult;
  /** Where the parsed body is in `content.pack`. */
  content?: PackRange;
  /** Where a summary's lists (cache-codec.ts `LIST_KEYS`) are in `content.pack`. */
  lists?: PackRange;
  /**
   * Top-level headings of the body as remark found them, once it was parsed
   * here or by the machine that wrote the committed record: enough to show
   * the body with its headings demoted without parsing it again.
   */
  headings?: HeadingSpan[];
}

export interface ParsedContent {
  body: string;
  sentences: Sentence[];
  /** Top-level headings of `body`; absent in content parsed before they were recorded. */
  headings?: HeadingSpan[];
}

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
  /**
   * True once this process set or forgot an entry, saved or not. False after
   * a load that found every file as cached: what is derived from all entries
   * (the committed record) needs no rewrite.
   */
  modified = false;
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
        // Lists stay in the pack until read; the cache they are read through is made below.
        let opened: ParseCache | undefined;
        const readLists = (key: string, range: PackRange) => opened!.readLists(key, range);
        for (const key in json.entries) entries.set(key, decodeEntry(key, json.entries[key]!, readLists));
        const log = readLog(dir, json.id);
        for (const line of log.lines) {
          for (const key in line.entries) {
            const stored = line.entries[key];
            if (stored) entries.set(key, decodeEntry(key, stored, readLists));
            else entries.delete(key);
          }
        }
        const packSize = log.lines.at(-1)?.packSize ?? json.packSize;
        const packPath = path.join(dir, 'content.pack');
        const actual = fileSize(packPath);
        if (actual >= packSize) {
          // Records past the known size were appended by a build that crashed before saving: drop them.
          if (actual > packSize) truncateSync(packPath, packSize);
          opened = new ParseCache(dir, timezone, entries, packSize, { id: json.id, bytes: text.length, logBytes: log.validBytes });
          // Opened now, not at the first read: a build in another process that compacts the pack renames a new file over it,
          // and a long-lived reader (the MCP server, watch) must go on reading the records its entries point at.
          if (packSize > 0) opened.packFd = openSync(packPath, 'r');
          return opened;
        }
      }
    } catch {
      // No cache yet, or unreadable: parse everything.
    }
    return new ParseCache(dir, timezone, new Map(), 0, undefined);
  }

  /**
   * Names what the entries hold: the `files.json` on disk and the length of its
   * log, which every save that changes an entry moves on. Undefined once this
   * process set or forgot an entry, and for a cache never saved.
   */
  get state(): string | undefined {
    return this.modified || !this.base ? undefined : `${this.base.id}+${this.base.logBytes}`;
  }

  get(vaultPath: string): CacheEntry | undefined {
    return this.entries.get(vaultPath);
  }

  /** How many entries the cache holds. */
  get size(): number {
    return this.entries.size;
  }

  /** Every entry. */
  values(): IterableIterator<CacheEntry> {
    return this.entries.values();
  }

  /** Records a file's parse result; `content`, when given, is stored in the pack. */
  set(vaultPath: string, entry: Omit<CacheEntry, 'content' | 'lists'>, content?: ParsedContent): void {
    const stored: CacheEntry = { ...entry };
    const previous = this.entries.get(vaultPath);
    if (content) stored.content = this.append(content);
    else if (previous?.content && previous.sha256 === entry.sha256) stored.content = previous.content;
    const headings = content?.headings ?? entry.headings ?? (previous?.sha256 === entry.sha256 ? previous.headings : undefined);
    if (headings) stored.headings = headings;
    const result = entry.result;
    // The same summary object keeps its record (its lists may not be read yet); a new one writes its lists.
    if (previous?.lists && previous.result === result) stored.lists = previous.lists;
    else if (result.type === 'summary') {
      const lists = listsOf(result.summary.meta);
      if (lists) stored.lists = this.append({ path: vaultPath, lists } satisfies ListsRecord);
    }
    this.entries.set(vaultPath, stored);
    this.changed.add(vaultPath);
    this.modified = true;
  }

  /** Forgets paths that no longer exist. */
  retain(paths: ReadonlySet<string>): void {
    for (const key of this.entries.keys()) {
      if (!paths.has(key)) {
        this.entries.delete(key);
        this.changed.add(key);
        this.modified = true;
      }
    }
  }

  /** The parsed body of a cached file, if the pack has it. */
  readContent(vaultPath: string, sha: string): ParsedContent | undefined {
    const entry = this.entries.get(vaultPath);
    if (!entry?.content || entry.sha256 !== sha) return undefined;
    // Past the pack's size: still pending, and the caller holds it in memory.
    if (entry.content[0] + entry.content[1] > this.packSize) return undefined;
    try {
      return this.readRecord(entry.content) as ParsedContent;
    } catch {
      return undefined;
    }
  }

  /**
   * The lists of the summary at `key` (a lazy property of its metadata reads
   * them on first use). Unlike a body, they cannot be parsed again from the
   * file by the caller, so a record that is missing or not this summary's is an error.
   */
  readLists(key: string, range: PackRange): Record<string, unknown> {
    let record: ListsRecord | undefined;
    try {
      record = this.readRecord(range) as ListsRecord;
    } catch {
      // Reported below.
    }
    if (record?.path !== key)
      throw new UserError('vault/cache-damaged', `the parse cache has no source list for \`${key}\``, { cache: this.dir });
    return record.lists;
  }

  private readRecord([offset, length]: PackRange): unknown {
    this.packFd ??= openSync(path.join(this.dir, 'content.pack'), 'r');
    const buffer = Buffer.alloc(length);
    readSync(this.packFd, buffer, 0, length, offset);
    return JSON.parse(buffer.toString('utf8'));
  }

  /** Queues a record for the pack; its range is final once `save` appends it. */
  private append(value: unknown): PackRange {
    const record = Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
    const range: PackRange = [this.packSize + this.pendingSize, record.length];
    this.pending.push(record);
    this.pendingSize += record.length;
    return range;
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
        line.entries[key] = entry ? encodeEntry(entry) : null;
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
    for (const [key, entry] of this.entries) stored[key] = encodeEntry(entry);
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
    for (const entry of this.entries.values()) live += (entry.content?.[1] ?? 0) + (entry.lists?.[1] ?? 0);
    if (this.packSize < 1 << 20 || live * 2 > this.packSize) return false;
    // Lists not read yet would be read at their old offsets: read them now, before the records move.
    for (const entry of this.entries.values())
      if (entry.result.type === 'summary' && hasLazyLists(entry.result.summary.meta)) listsOf(entry.result.summary.meta);
    const old = readFileSync(packPath);
    const chunks: Buffer[] = [];
    let offset = 0;
    const move = ([start, length]: PackRange): PackRange => {
      chunks.push(old.subarray(start, start + length));
      offset += length;
      return [offset - length, length];
    };
    for (const entry of this.entries.values()) {
      if (entry.content) entry.content = move(entry.content);
      if (entry.lists) entry.lists = move(entry.lists);
    }
    const temp = `${packPath}.tmp`;
    writeFileSync(temp, Buffer.concat(chunks));
    renameSync(temp, packPath);
    this.close(); // it was opened on the old pack to read the lists
    this.packSize = offset;
    return true;
  }
}

/**
 * Removes the parse cache in `dir` (`files.json`, `files.log`, `content.pack`,
 * and the derived memo beside them): after `memvault redact`, the text it
 * replaced may be in each (a memory's entry, the pack's dead records and the
 * log's old lines, the entries of summaries built from it), and a cache is
 * only ever rebuilt from the vault. Call under the build lock: a build saving
 * meanwhile would log against a pack that is gone.
 */
export function purgeParseCache(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
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
