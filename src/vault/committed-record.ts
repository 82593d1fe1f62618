import { execFileSync } from 'node:child_process';
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { diagnostic } from '../messages/diagnostic.js';
import { DETECTOR_VERSION } from '../redact/version.js';
import { writeFileAtomic } from '../util/atomic.js';
import { stableStringify } from '../util/hash.js';
import { CACHE_VERSION, type CacheEntry, type CachedResult, type ParseCache } from './cache.js';
import { frontmatterBody } from './frontmatter.js';
import { type HeadingSpan, headingSpans, mayHaveHeadings, parseMarkdown } from './markdown.js';
import type { Diagnostic, Memory, Summary } from './model.js';
import { readVaultFile } from './scan.js';

/**
 * The committed record (`vault/.memvault-record/<stream>/<shard>.jsonl`):
 * what the parse cache knows about each memory and summary, committed with
 * every build, so that a fresh clone (a nightly job, without `.memvault`)
 * neither reads nor parses the files it does not summarize. Each line names
 * a file, its git blob id, its SHA-256 and its parse result; a clone trusts
 * a line only for a file git calls unchanged (`git diff-files`) whose blob in
 * the index is the line's blob, so a hand edit committed without a build is
 * seen (its blob differs) and the file is read. Without git, the file is read
 * and its SHA-256 compared: the parse is still saved.
 *
 * Mergeable: one line per file, sorted by path, in shards by stream, top
 * folder and month, so two branches that build touch few shared lines. A
 * shard that does not parse (a merge conflict left in it) or was written for
 * another parser, time zone or secret detector is ignored (a warning for the
 * first) and its files are read; the next committing build writes it anew.
 */

export const RECORD_DIR = '.memvault-record';

/** Bump with any change to the line format; the parse cache's version covers the shape of parse results. */
// 2: lines carry the body's headings (`h`); a shard of format 1 is outdated, and written anew.
const RECORD_FORMAT = 2;

interface RecordHeader {
  'memvault-record': number;
  cache: number;
  timezone: string;
  detector: string;
}

/** One file of the record: its blob id, its SHA-256, and its parse result without what the path and hash say. */
interface RecordLine {
  p: string;
  b: string;
  s: string;
  m?: Omit<Memory, 'path' | 'stream' | 'sha256'>;
  y?: Omit<Summary, 'path' | 'sha256'> & { sha256?: string };
  /** The body's top-level headings as remark found them (`CacheEntry.headings`), when the writer had parsed it. */
  h?: HeadingSpan[];
}

export interface RecordEntry {
  blob: string;
  sha256: string;
  result: CachedResult;
  headings?: HeadingSpan[];
}

export interface ReadRecord {
  /** Vault path → what the record says of it. */
  entries: Map<string, RecordEntry>;
  /** Shards that could not be read (`record/unreadable`): their files are read as without a record. */
  warnings: Diagnostic[];
}

function header(timezone: string): string {
  const value: RecordHeader = { 'memvault-record': RECORD_FORMAT, cache: CACHE_VERSION, timezone, detector: DETECTOR_VERSION };
  return JSON.stringify(value);
}

/**
 * The shards `readRecord` read whole in this process, as `writeRecord` keeps them in `.memvault/record.json`: a fresh
 * clone has no such file, and without this `writeRecord` read the whole record (~19 MB) again to find it current.
 */
const readShards = new Map<string, ShardState>();

/** Every shard of the record for `streams`; an unreadable shard is left out with a warning, an outdated one silently. */
export function readRecord(vaultDir: string, streams: readonly string[], timezone: string): ReadRecord {
  const entries = new Map<string, RecordEntry>();
  const warnings: Diagnostic[] = [];
  const expected = header(timezone);
  for (const stream of streams) {
    for (const shard of shardFiles(vaultDir, stream)) {
      const vaultPath = `${RECORD_DIR}/${stream}/${shard}`;
      const read = readVaultFile(vaultDir, vaultPath);
      if (!read.ok) continue;
      // Most shards are ASCII: read as one-byte text, which JSON.parse also reads faster (~19 MB at 20,000 memories).
      const lines = read.bytes.toString(isAscii(read.bytes) ? 'latin1' : 'utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      if (lines[0] !== expected) {
        // A record of another parser, zone or detector is outdated, not broken: it is rewritten by the next build.
        if (!lines[0]?.startsWith('{"memvault-record":')) warnings.push(unreadable(vaultPath, 1, 'no record header'));
        continue;
      }
      const shardEntries = parseShard(lines, stream);
      if (typeof shardEntries === 'number') {
        warnings.push(unreadable(vaultPath, shardEntries + 1, 'a line is not a record line (a merge conflict left in it?)'));
        continue;
      }
      const digest = createHash('sha256').update(expected);
      for (const [key, entry] of shardEntries) {
        entries.set(key, entry);
        digest.update(shardDigestLine(key, entry.sha256, entry.headings !== undefined));
      }
      const stat = statOrUndefined(path.join(vaultDir, vaultPath));
      if (stat) readShards.set(`${vaultDir}\0${stream}/${shard}`, { digest: digest.digest('hex'), ...stat });
    }
  }
  return { entries, warnings };
}

/** The entries of a shard's lines (after the header), or the index of the first line that is not a record line. */
function parseShard(lines: readonly string[], stream: string): Map<string, RecordEntry> | number {
  const out = new Map<string, RecordEntry>();
  for (let i = 1; i < lines.length; i++) {
    let line: RecordLine;
    try {
      line = JSON.parse(lines[i]!) as RecordLine;
    } catch {
      return i;
    }
    if (typeof line?.p !== 'string' || !line.p.startsWith(`${stream}/`) || typeof line.b !== 'string' || typeof line.s !== 'string')
      return i;
    const result = decodeResult(line, stream);
    if (!result || (line.h !== undefined && !isHeadingSpans(line.h))) return i;
    out.set(line.p, line.h ? { blob: line.b, sha256: line.s, result, headings: line.h } : { blob: line.b, sha256: line.s, result });
  }
  return out;
}

/**
 * The parse result of a line. The parsed object is completed in place, not copied (21,000 copies were a fifth of reading
 * the record): its keys end up in the order a copy has (its own, then path, stream and hash), so the cache stores the same.
 */
function decodeResult(line: RecordLine, stream: string): CachedResult | undefined {
  if (line.m && typeof line.m === 'object' && !Array.isArray(line.m)) {
    const memory = line.m as Memory;
    memory.path = line.p;
    memory.stream = stream;
    memory.sha256 = line.s;
    return { type: 'memory', memory };
  }
  if (line.y && typeof line.y === 'object' && line.y.meta && typeof line.y.meta === 'object' && Array.isArray(line.y.meta.sources)) {
    if (line.y.sha256 === undefined) {
      const summary = line.y as Summary;
      summary.path = line.p;
      summary.sha256 = line.s;
      return { type: 'summary', summary };
    }
    const { sha256, ...summary } = line.y;
    return { type: 'summary', summary: { ...summary, path: line.p, sha256 } };
  }
  return undefined;
}

function isHeadingSpans(value: unknown): value is HeadingSpan[] {
  return Array.isArray(value) && value.every((span) => Array.isArray(span) && span.length === 5 && span.every(Number.isInteger));
}

/**
 * The top-level headings of a file's body, as remark finds them, for its
 * line: every line has them, so the record is the same whatever this machine
 * parsed before. From the parse cache (the entry, or the parsed body it
 * kept), else from the body: none when no line may be a heading, else
 * parsed (once: kept in the entry). Undefined when the file no longer has
 * the entry's content (the line is written without them, and read again).
 */
function headingsOf(vaultDir: string, vaultPath: string, entry: CacheEntry, cache: ParseCache): HeadingSpan[] | undefined {
  if (entry.headings) return entry.headings;
  // Kept in the entry once found: the next rewrite of this shard does not read the content pack again.
  const packed = cache.readContent(vaultPath, entry.sha256)?.headings;
  if (packed) {
    cache.set(vaultPath, { ...entry, headings: packed });
    return packed;
  }
  const read = readVaultFile(vaultDir, vaultPath);
  if (!read.ok || createHash('sha256').update(read.bytes).digest('hex') !== entry.sha256) return undefined;
  const body = frontmatterBody(Buffer.from(read.bytes).toString('utf8')).trim();
  const headings = mayHaveHeadings(body) ? headingSpans(parseMarkdown(body)) : [];
  cache.set(vaultPath, { ...entry, headings });
  return headings;
}

/** A file's part of its shard's digest: path, hash, and whether its headings are known (a shard gains them once parsed). */
function shardDigestLine(vaultPath: string, sha256: string, headings: boolean): string {
  return `\n${vaultPath} ${sha256}${headings ? ' h' : ''}`;
}

function unreadable(vaultPath: string, line: number, why: string): Diagnostic {
  return diagnostic('record/unreadable', { path: vaultPath, line, column: 1 }, `the committed record cannot be read: ${why}`);
}

function shardFiles(vaultDir: string, stream: string): string[] {
  try {
    return readdirSync(path.join(vaultDir, RECORD_DIR, stream))
      .filter((name) => name.endsWith('.jsonl'))
      .sort();
  } catch {
    return [];
  }
}

/** Git's blob id of a file's content: what `git ls-files -s` lists for it when it is committed unchanged. */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** The shard a file's line goes to: its top folder in the stream and the month of its day (memories) or period start (summaries). */
function shardOf(vaultPath: string, result: CachedResult): string {
  const inStream = vaultPath.slice(vaultPath.indexOf('/') + 1);
  const slash = inStream.indexOf('/');
  const top = slash < 0 ? 'root' : inStream.slice(0, slash);
  const day = result.type === 'memory' ? result.memory.day : result.type === 'summary' ? result.summary.meta.start : '';
  const month = /^\d{4}-\d{2}/.test(day) ? day.slice(0, 7) : 'undated';
  return `${top.replace(/[^A-Za-z0-9_-]/g, '_')}-${month}.jsonl`;
}

function encodeLine(
  vaultPath: string,
  blob: string,
  sha256: string,
  result: CachedResult,
  headings: HeadingSpan[] | undefined,
): string | undefined {
  const h = headings ? `,"h":${JSON.stringify(headings)}` : '';
  if (result.type === 'memory') {
    // A memory with a secret (allowed or not) is left out: the record never repeats a secret, and a clone scans it again.
    if (result.secrets && result.secrets.length > 0) return undefined;
    const { path: _path, stream: _stream, sha256: _sha, ...memory } = result.memory;
    return `${lineStart(vaultPath, blob, sha256)},"m":${stableStringify(memory)}${h}}`;
  }
  if (result.type === 'summary') {
    // Planning compares each source's hash: a summary whose source list is not at hand is left out (a clone reads it).
    if (!Array.isArray(result.summary.meta.sources)) return undefined;
    const { path: _path, sha256: summarySha, ...summary } = result.summary;
    const y = summarySha === sha256 ? summary : { ...summary, sha256: summarySha };
    return `${lineStart(vaultPath, blob, sha256)},"y":${stableStringify(y)}${h}}`;
  }
  return undefined;
}

/** Path, blob and hash first, in this order (`LINE_START` reads them); the result with its keys sorted, so equal results give equal lines. */
function lineStart(vaultPath: string, blob: string, sha256: string): string {
  return `{"p":${JSON.stringify(vaultPath)},"b":"${blob}","s":"${sha256}"`;
}

/** A stream as the build leaves it: the files its record lists. */
export interface RecordedStream {
  name: string;
  memories: readonly Memory[];
  summaries: Iterable<Summary>;
}

/**
 * Writes the shards of each stream whose lines changed and removes those no
 * longer needed; returns their vault paths (to commit with the build). Blob
 * ids come from the record on disk when the file's hash is unchanged, else
 * from reading the file (every file once, the first time a vault is recorded).
 * `stateDir` (`.memvault`) keeps a digest of each shard's files and hashes as
 * last written, with the shard's size and mtime: a shard whose digest and
 * stat are unchanged is not even read (a warm build changes a few shards of ~19 MB).
 */
export function writeRecord(
  vaultDir: string,
  streams: readonly RecordedStream[],
  cache: ParseCache,
  timezone: string,
  stateDir?: string,
): string[] {
  const written: string[] = [];
  const head = header(timezone);
  const state = stateDir ? readState(stateDir) : { shards: {} };
  const next: RecordState = { shards: {} };
  for (const stream of streams) {
    const shards = new Map<string, { path: string; entry: CacheEntry }[]>();
    const paths = [...stream.memories.map((m) => m.path), ...[...stream.summaries].map((s) => s.path)];
    for (const vaultPath of paths) {
      const entry = cache.get(vaultPath);
      if (!entry || entry.result.type === 'invalid' || !entry.sha256) continue;
      const shard = shardOf(vaultPath, entry.result);
      const list = shards.get(shard) ?? [];
      list.push({ path: vaultPath, entry });
      shards.set(shard, list);
    }
    const dir = path.join(vaultDir, RECORD_DIR, stream.name);
    for (const [shard, files] of shards) {
      files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const key = `${stream.name}/${shard}`;
      const file = path.join(dir, shard);
      const digest = createHash('sha256').update(head);
      for (const f of files) digest.update(shardDigestLine(f.path, f.entry.sha256, f.entry.headings !== undefined));
      const mine = { digest: digest.digest('hex'), size: 0, mtimeMs: 0 };
      // Lines are sorted by path as `files` is, so a shard read whole by this process has the digest its files give.
      const before = state.shards[key] ?? readShards.get(`${vaultDir}\0${key}`);
      const stat = statOrUndefined(file);
      if (before && stat && before.digest === mine.digest && before.size === stat.size && before.mtimeMs === stat.mtimeMs) {
        next.shards[key] = before;
        continue;
      }
      const old = knownShard(file, head);
      // A well-formed shard listing the same files with the same hashes is current: nothing to encode.
      const current =
        old.intact &&
        old.lines.length === files.length &&
        files.every((f, i) => {
          const line = old.lines[i]!;
          // A body parsed since its line was written: the line gains the headings a clone shows it with.
          return line.path === f.path && line.sha256 === f.entry.sha256 && (line.headings || f.entry.headings === undefined);
        });
      if (!current) {
        const byPath = new Map(old.lines.map((line) => [line.path, line]));
        const lines: string[] = [];
        for (const { path: vaultPath, entry } of files) {
          const blob = blobOf(vaultDir, vaultPath, entry.sha256, byPath.get(vaultPath));
          const line = blob && encodeLine(vaultPath, blob, entry.sha256, entry.result, headingsOf(vaultDir, vaultPath, entry, cache));
          if (line) lines.push(line);
        }
        const text = `${head}\n${lines.join('\n')}\n`;
        if (old.text !== text) {
          mkdirSync(dir, { recursive: true });
          writeFileAtomic(file, text);
          written.push(`${RECORD_DIR}/${key}`);
        }
      }
      const after = statOrUndefined(file);
      if (after) next.shards[key] = { ...mine, size: after.size, mtimeMs: after.mtimeMs };
    }
    for (const shard of shardFiles(vaultDir, stream.name)) {
      if (shards.has(shard)) continue;
      rmSync(path.join(dir, shard), { force: true });
      written.push(`${RECORD_DIR}/${stream.name}/${shard}`);
    }
  }
  if (stateDir) writeState(stateDir, next);
  return written;
}

/** What `writeRecord` last wrote, per `<stream>/<shard>` (`.memvault/record.json`, outside git; losing it costs one read of the record). */
interface RecordState {
  shards: Record<string, ShardState>;
}

interface ShardState {
  digest: string;
  size: number;
  mtimeMs: number;
}

function readState(stateDir: string): RecordState {
  try {
    const json = JSON.parse(readFileSync(path.join(stateDir, 'record.json'), 'utf8')) as RecordState;
    return json && typeof json.shards === 'object' && json.shards !== null ? json : { shards: {} };
  } catch {
    return { shards: {} };
  }
}

function writeState(stateDir: string, state: RecordState): void {
  try {
    mkdirSync(stateDir, { recursive: true });
    writeFileAtomic(path.join(stateDir, 'record.json'), `${JSON.stringify(state)}\n`);
  } catch {
    // Only a shortcut: the next build reads the shards instead.
  }
}

function statOrUndefined(file: string): { size: number; mtimeMs: number } | undefined {
  try {
    const stat = statSync(file);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

/** The start of every line: `{"p":<path>,"b":"<blob>","s":"<sha256>"`, read without parsing the rest. */
const LINE_START = /^\{"p":("(?:[^"\\]|\\.)*"),"b":"([0-9a-f]{40})","s":"([0-9a-f]{64})"/;

interface KnownLine {
  path: string;
  blob: string;
  sha256: string;
  /** The line holds the body's headings. */
  headings: boolean;
}

/**
 * A shard on disk: the path, blob id and SHA-256 of its lines, read from the
 * start of each line without parsing the rest. `intact`: the header is this
 * build's and every line is a record line.
 */
function knownShard(file: string, head: string): { text: string | undefined; lines: KnownLine[]; intact: boolean } {
  const text = readText(file);
  const lines: KnownLine[] = [];
  let intact = text?.startsWith(`${head}\n`) === true && text.endsWith('\n');
  const rows = (text ?? '').split('\n');
  for (let i = 1; i < rows.length - 1; i++) {
    const match = LINE_START.exec(rows[i]!);
    // `h` is a line's last key; `,"h":[` cannot be inside a JSON string (its quotes would be escaped).
    if (match)
      lines.push({ path: JSON.parse(match[1]!) as string, blob: match[2]!, sha256: match[3]!, headings: rows[i]!.includes(',"h":[') });
    else intact = false;
  }
  return { text, lines, intact };
}

function blobOf(vaultDir: string, vaultPath: string, sha256: string, known: KnownLine | undefined): string | undefined {
  if (known?.sha256 === sha256) return known.blob;
  const read = readVaultFile(vaultDir, vaultPath);
  // The file changed since the build read it: left out, a clone reads it.
  if (!read.ok || createHash('sha256').update(read.bytes).digest('hex') !== sha256) return undefined;
  return gitBlobId(read.bytes);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The record's shards that differ from HEAD (changed, new or removed), as
 * vault paths: what a committing build commits besides its own outputs. It
 * also takes what a build with commits off left behind. Empty when git cannot
 * tell (no repository, no commit yet: then every shard is new).
 */
export function uncommittedRecord(vaultDir: string): string[] {
  const git = (args: string[]): string[] | undefined => {
    try {
      const out = execFileSync('git', args, { cwd: vaultDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 26 });
      return out.split('\0').filter((line) => line !== '');
    } catch {
      return undefined;
    }
  };
  const others = git(['ls-files', '--others', '-z', '--', RECORD_DIR]) ?? [];
  const changed = git(['diff', '--name-only', '--relative', '--no-renames', '-z', 'HEAD', '--', RECORD_DIR]) ?? [];
  return [...new Set([...changed, ...others])].sort();
}
