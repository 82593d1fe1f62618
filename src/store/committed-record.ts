import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { diagnostic } from '../messages/diagnostic.js';
import { DETECTOR_VERSION } from '../redact/version.js';
import { CACHE_VERSION, type CachedResult } from './cache.js';
import { decodeCitation, type StoredCitation } from './cache-codec.js';
import type { HeadingSpan } from '../vault/markdown.js';
import type { Diagnostic, Memory, Summary } from '../vault/model.js';
import { RECORD_DIR } from '../vault/paths.js';
import { readVaultFile } from '../vault/scan.js';
import { summaryMetaSchema } from '../vault/summary-file.js';

/**
 * The committed record (`vault/.memvault-record/<stream>/<shard>.jsonl`):
 * what the parse cache knows about each memory and summary, committed with
 * every build, so that a fresh clone (a nightly job, without `.memvault`)
 * neither reads nor parses the files it does not summarize. Each line names
 * a file, its git blob id, its SHA-256 and its parse result; a clone trusts
 * a line only for a file git calls unchanged whose blob in the index is the
 * line's blob (GitBackend.unchangedBlobs), so a hand edit committed without a
 * build is seen (its blob differs) and the file is read. Blob ids come from
 * git, never from hashing here (committed-record-write.ts). Where git cannot
 * vouch for a file (no repository, a path whose checkout git converts), it is
 * read and its SHA-256 compared: the parse is still saved.
 *
 * This file reads the record (and holds its format); committed-record-write.ts
 * writes it.
 *
 * Mergeable: one line per file, sorted by path, in shards by stream, top
 * folder and month, so two branches that build touch few shared lines. A
 * shard that does not parse (a merge conflict left in it) or was written for
 * another parser, time zone or secret detector is ignored (a warning for the
 * first) and its files are read; the next committing build writes it anew.
 */

export { RECORD_DIR } from '../vault/paths.js';

/** Bump with any change to the line format; the parse cache's version covers the shape of parse results. */
// 2: lines carry the body's headings (`h`); a shard of format 1 is outdated, and written anew.
// 3: a memory's citations are tuples in `c` (cache-codec.ts `StoredCitation`), not objects in `m`.
const RECORD_FORMAT = 3;

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
  /** The memory's citations, when it cites anything. */
  c?: StoredCitation[];
  y?: Omit<Summary, 'path' | 'sha256'> & { sha256?: string };
  /** The body's top-level headings as remark found them (`CacheEntry.headings`), when the writer had parsed it. */
  h?: HeadingSpan[];
}

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const memoryResult = z.looseObject({
  id: z.string(),
  location: z.enum(['memories', 'archive']),
  date: z.string(),
  day: z.string(),
  minute: z.number(),
  title: z.string().optional(),
  kind: z.string(),
  tags: z.array(z.string()),
  importance: z.enum(['low', 'normal', 'high', 'pinned']),
  duplicateOf: z.string().optional(),
  facts: z.array(z.looseObject({})).optional(),
  factProblems: z.array(z.looseObject({})).optional(),
  // Citations are in the line's `c`, checked there: one left in `m` would go unchecked.
  citations: z.never().optional(),
});
const storedKind = z.enum(['p', 'c', 'b', 'i']);
const quote = z.object({ kind: z.enum(['block', 'spans']), text: z.array(z.string()), height: z.int() });
const storedCitation = z.union([
  z.tuple([storedKind, z.string(), z.int()]),
  z.tuple([
    storedKind,
    z.string(),
    z.int(),
    z.object({ lines: z.tuple([z.int(), z.int()]).optional(), symbol: z.string().optional(), quote: quote.optional() }),
  ]),
]);
const headingSpan = z.tuple([z.int(), z.int(), z.int(), z.int(), z.int()]);
/**
 * A memory's citations (`c`, the usual one `["i","#4234",13]`) and a body's top-level headings (`h`, five integers
 * each), checked by zod like the rest of the line. At 20,000 memories a clone's record holds ~200,000 citations and
 * ~60,000 heading spans: zod's check of them is ~60–70 ms of a fresh clone (measured 2026-11-28; a hand-written check
 * of the usual forms took ~5 ms), left to the engine so that the record's form is defined in one place.
 */
const storedCitations = z.array(storedCitation);
const headingSpans = z.array(headingSpan);
const summaryResult = z.looseObject({
  meta: summaryMetaSchema.extend({ sources: summaryMetaSchema.shape.sources.unwrap() }),
  bodyHash: z.string(),
  sha256: sha256Hex.optional(),
});
/**
 * A record line as it must be: the record arrives with a clone (and a merge), so each line is checked before a
 * clone trusts it. Checked, not copied: the parsed object is completed in place (`decodeResult`).
 */
const recordLine = z.union([
  z.object({
    p: z.string(),
    b: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/),
    s: sha256Hex,
    m: memoryResult,
    c: storedCitations.optional(),
    h: headingSpans.optional(),
  }),
  z.object({
    p: z.string(),
    b: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/),
    s: sha256Hex,
    y: summaryResult,
    h: headingSpans.optional(),
  }),
]);

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

export function header(timezone: string): string {
  const value: RecordHeader = { 'memvault-record': RECORD_FORMAT, cache: CACHE_VERSION, timezone, detector: DETECTOR_VERSION };
  return JSON.stringify(value);
}

/**
 * The shards `readRecord` read whole in this process, as `writeRecord` keeps them in the state store: a fresh
 * clone has no such file, and without this `writeRecord` read the whole record (~19 MB) again to find it current.
 */
const readShards = new Map<string, ShardState>();

/** The state of a shard `readRecord` read whole in this process (`key`: `<stream>/<shard>`). */
export function shardReadWhole(vaultDir: string, key: string): ShardState | undefined {
  return readShards.get(`${vaultDir}\0${key}`);
}

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
      for (const [key, entry] of shardEntries) entries.set(key, entry);
      const stat = statOrUndefined(path.join(vaultDir, vaultPath));
      if (stat) readShards.set(`${vaultDir}\0${stream}/${shard}`, { digest: shardDigest(expected, shardEntries), ...stat });
    }
  }
  return { entries, warnings };
}

/** The entries of a shard's lines (after the header), or the index of the first line that is not a record line. */
function parseShard(lines: readonly string[], stream: string): Map<string, RecordEntry> | number {
  const out = new Map<string, RecordEntry>();
  for (let i = 1; i < lines.length; i++) {
    let raw: unknown;
    try {
      raw = JSON.parse(lines[i]!);
    } catch {
      return i;
    }
    if (!recordLine.safeParse(raw).success) return i;
    const line = raw as RecordLine; // checked just above; kept as parsed (see `recordLine`)
    if (!line.p.startsWith(`${stream}/`)) return i;
    const result = decodeResult(line, stream);
    if (!result) return i;
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
    if (line.c) memory.citations = line.c.map(decodeCitation);
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

/**
 * A shard's digest: its header, then per file (sorted by path) its path, hash, and whether its headings are known (a
 * shard gains them once parsed). Hashed at once: an update per file (21,000 calls into the hash) cost ~40 ms.
 */
export function shardDigest(head: string, files: Iterable<readonly [string, { sha256: string; headings?: unknown }]>): string {
  let text = head;
  for (const [vaultPath, entry] of files) text += `\n${vaultPath} ${entry.sha256}${entry.headings !== undefined ? ' h' : ''}`;
  return createHash('sha256').update(text).digest('hex');
}

function unreadable(vaultPath: string, line: number, why: string): Diagnostic {
  return diagnostic('record/unreadable', { path: vaultPath, line, column: 1 }, `the committed record cannot be read: ${why}`);
}

export function shardFiles(vaultDir: string, stream: string): string[] {
  try {
    return readdirSync(path.join(vaultDir, RECORD_DIR, stream))
      .filter((name) => name.endsWith('.jsonl'))
      .sort();
  } catch {
    return [];
  }
}

export interface ShardState {
  digest: string;
  size: number;
  mtimeMs: number;
}

export function statOrUndefined(file: string): { size: number; mtimeMs: number } | undefined {
  try {
    const stat = statSync(file);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}
