import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type GitBackend, gitBackend } from '../git/backend.js';
import { findRepo, repoRelative } from '../git/repo.js';
import * as z from 'zod';
import { openStateStore } from './database.js';
import { kvTable, zodDecode } from './kv.js';
import { writeFileAtomic } from '../util/atomic.js';
import { ensureVaultFolder } from '../util/inside.js';
import { sha256, stableStringify } from '../util/hash.js';
import type { CacheEntry, CachedResult, ParseCache } from './cache.js';
import { encodeCitation } from './cache-codec.js';
import { header, RECORD_DIR, type ShardState, shardDigest, shardFiles, shardReadWhole, statOrUndefined } from './committed-record.js';
import { frontmatterBody } from '../vault/frontmatter.js';
import { type HeadingSpan, headingSpans, mayHaveHeadings, parseMarkdown } from '../vault/markdown.js';
import type { Memory, Summary } from '../vault/model.js';
import { readVaultFile } from '../vault/scan.js';

/**
 * Writing the committed record (committed-record.ts has its format and the
 * reading): the shards of each stream whose lines changed, each line with the
 * blob id git gives the file (GitBackend.blobIds: `git hash-object`, or
 * isomorphic-git's hashBlob), and the record's shards git calls uncommitted,
 * to commit with a build.
 */

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
  // Kept in the entry once found: the next rewrite of this shard does not read the stored body again.
  const packed = cache.readContent(vaultPath, entry.sha256)?.headings;
  if (packed) {
    cache.set(vaultPath, { ...entry, headings: packed });
    return packed;
  }
  const read = readVaultFile(vaultDir, vaultPath);
  if (!read.ok || sha256(read.bytes) !== entry.sha256) return undefined;
  const body = frontmatterBody(Buffer.from(read.bytes).toString('utf8')).trim();
  const headings = mayHaveHeadings(body) ? headingSpans(parseMarkdown(body)) : [];
  cache.set(vaultPath, { ...entry, headings });
  return headings;
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
    const { path: _path, stream: _stream, sha256: _sha, citations, ...memory } = result.memory;
    // Citations as tuples (`c`, cache-codec.ts `StoredCitation`): as objects they were a third of the record.
    const c = citations ? `,"c":${JSON.stringify(citations.map(encodeCitation))}` : '';
    return `${lineStart(vaultPath, blob, sha256)},"m":${stableStringify(memory)}${c}${h}}`;
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

/** What `writeRecord` did. */
export interface RecordWritten {
  /** The record's shards written or removed (vault paths), to commit with the build. */
  written: string[];
  /** True when only the shards holding a path the parse cache changed were looked at (`planFromChanges`). */
  incremental: boolean;
  /**
   * What the next build needs to trust the state kept for every shard: `keepRecordBasis` stores it once the cache is
   * saved. None for the first record a state store keeps.
   */
  basis: RecordBasis | undefined;
}

/**
 * Writes the shards of each stream whose lines changed and removes those no
 * longer needed; returns their vault paths (to commit with the build). Blob
 * ids come from the record on disk when the file's hash is unchanged, else
 * from git, asked once for all such files (every file, the first time a vault
 * is recorded). `stateDir` (`.memvault`) keeps a digest of each shard's files
 * and hashes as last written, with the shard's size and mtime: a shard whose
 * digest and stat are unchanged is not even read (a warm build changes a few
 * shards of ~19 MB).
 *
 * Which shards to look at: every one, grouping every file of every stream
 * (~50-70 ms at 20,000 memories); or, when the state store says the record was
 * last written from the parse cache's entries as this process read them
 * (`RecordBasis`), only the shards holding a path the cache changed since
 * (`planFromChanges`). Both give the same record, byte for byte.
 */
export async function writeRecord(
  vaultDir: string,
  given: readonly RecordedStream[],
  cache: ParseCache,
  timezone: string,
  stateDir?: string,
  /** Where the git backend is chosen (`MEMVAULT_GIT_BACKEND`, git/backend.ts); default `process.env`. */
  env?: NodeJS.ProcessEnv,
): Promise<RecordWritten> {
  // Summaries may come as an iterator, and are gone through twice here.
  const streams = given.map((stream) => ({ ...stream, summaries: [...stream.summaries] }));
  const backend = await gitBackend(env).catch(() => undefined); // none: lines are left out, a clone reads the files
  const ahead = blobsAhead(vaultDir, cache, backend);
  const head = header(timezone);
  const state = stateDir ? readState(stateDir) : { shards: {} };
  // The first record this state store keeps (a fresh clone, most often a nightly job's one build) keeps no files lists
  // and no basis (~30 ms at 20,000 memories): the next build keeps them, and the one after looks at fewer shards.
  const members = stateDir && Object.keys(state.shards).length > 0 ? membersOf(streams, cache) : undefined;
  const basis: RecordBasis | undefined = members && { head, members: members.digest };
  const fromChanges = stateDir && members ? planFromChanges({ vaultDir, stateDir, streams, cache, head, state, members }) : undefined;
  const planned = fromChanges ?? planAll(vaultDir, streams, cache, members !== undefined);
  const next: RecordState = { shards: fromChanges ? { ...fromChanges.untouched } : {} };
  const written: string[] = [];
  const changed: ChangedShard[] = [];
  for (const stream of streams) {
    const dir = path.join(vaultDir, RECORD_DIR, stream.name);
    ensureVaultFolder(vaultDir, dir); // its shards are removed and written: never through a link (util/inside.ts)
    for (const [shard, files] of planned.shards.get(stream.name) ?? []) {
      const change = checkShard(
        { vaultDir, head, state, next },
        { key: `${stream.name}/${shard}`, dir, file: path.join(dir, shard), files },
      );
      if (change) changed.push(change);
    }
    for (const shard of planned.removed.get(stream.name) ?? []) {
      rmSync(path.join(dir, shard), { force: true });
      written.push(`${RECORD_DIR}/${stream.name}/${shard}`);
    }
  }
  // The files whose line on disk has another hash (or none), hashed by git in one batch.
  const unknown = new Map<string, string>();
  for (const { files, old } of changed) {
    const byPath = new Map(old.lines.map((line) => [line.path, line]));
    for (const { path: vaultPath, entry } of files) {
      if (byPath.get(vaultPath)?.sha256 !== entry.sha256) unknown.set(vaultPath, entry.sha256);
    }
  }
  const blobs = new Map(await ahead.ids);
  const rest = new Map([...unknown].filter(([vaultPath, sha256]) => ahead.asked.get(vaultPath) !== sha256));
  for (const [vaultPath, blob] of await blobIds(vaultDir, rest, backend)) blobs.set(vaultPath, blob);
  for (const shard of changed) {
    if (writeShard(vaultDir, head, shard, blobs, cache)) written.push(`${RECORD_DIR}/${shard.key}`);
    const after = statOrUndefined(shard.file);
    if (after) next.shards[shard.key] = { ...shard.mine, size: after.size, mtimeMs: after.mtimeMs };
  }
  if (stateDir) writeState(stateDir, state, next, planned);
  return { written, incremental: fromChanges !== undefined, basis };
}

/**
 * Git's blob ids of the files whose content the parse cache changed since it was last in sync (their lines need new
 * ones), asked before the shards are planned and read: git hashes them while this thread works (~20-30 ms of an edit's
 * build at 20,000 memories). The rest of what the shards need is asked after (`writeRecord`).
 */
function blobsAhead(
  vaultDir: string,
  cache: ParseCache,
  backend: GitBackend | undefined,
): { asked: Map<string, string>; ids: Promise<Map<string, string>> } {
  const asked = new Map<string, string>();
  for (const [vaultPath, before] of cache.changesSinceSync()?.previous ?? []) {
    const now = cache.get(vaultPath);
    if (recorded(now) && now.sha256 !== before?.sha256) asked.set(vaultPath, now.sha256);
  }
  const ids = blobIds(vaultDir, asked, backend);
  ids.catch(() => undefined); // awaited once the shards are read
  return { asked, ids };
}

/**
 * After the build saved the parse cache: says that the record's state (each shard's digest and files) was written from
 * the entries the store now holds, at its generation, for these members. Only when the cache knows the store holds
 * exactly its entries (no other process saved in between); else, as after a crash before this call, the next build
 * looks at every shard.
 */
export function keepRecordBasis(stateDir: string, basis: RecordBasis | undefined, cache: ParseCache): void {
  const generation = cache.syncedGeneration;
  if (basis === undefined || generation === undefined) return;
  try {
    basisTable(stateDir).set(BASIS_KEY, { ...basis, generation });
  } catch {
    // Only a shortcut: the next build looks at every shard.
  }
}

type ShardFile = { path: string; entry: CacheEntry };

/** Shards to look at (stream → shard → its files, sorted by path), those to remove, and the files lists to keep. */
interface PlannedShards {
  shards: Map<string, Map<string, ShardFile[]>>;
  removed: Map<string, string[]>;
  /** `<stream>/<shard>` → its files' paths, of the shards looked at. */
  files: Map<string, string[]>;
  /** Every shard was looked at (`planAll`): lists are kept for those that changed and those that have none yet. */
  everyShard: boolean;
}

/** Every shard of every stream, and the shards on disk that no file goes to any more; with `listed`, their files lists. */
function planAll(vaultDir: string, streams: readonly RecordedStream[], cache: ParseCache, listed: boolean): PlannedShards {
  const shards = new Map<string, Map<string, ShardFile[]>>();
  const removed = new Map<string, string[]>();
  const files = new Map<string, string[]>();
  for (const stream of streams) {
    const mine = shardsOf(stream, cache);
    shards.set(stream.name, mine);
    if (listed)
      for (const [shard, list] of mine)
        files.set(
          `${stream.name}/${shard}`,
          list.map((f) => f.path),
        );
    removed.set(
      stream.name,
      shardFiles(vaultDir, stream.name).filter((shard) => !mine.has(shard)),
    );
  }
  return { shards, removed, files, everyShard: true };
}

/** Whether the record lists this entry's file (the digest's files: a memory holding a secret is one, with no line). */
const recorded = (entry: CacheEntry | undefined): entry is CacheEntry =>
  entry !== undefined && entry.result.type !== 'invalid' && entry.sha256 !== '';

/** A stream's valid memories and summaries in the parse cache, by the shard their line goes to, sorted by path. */
function shardsOf(stream: RecordedStream, cache: ParseCache): Map<string, ShardFile[]> {
  const shards = new Map<string, ShardFile[]>();
  const paths = [...stream.memories.map((m) => m.path), ...[...stream.summaries].map((s) => s.path)];
  for (const vaultPath of paths) {
    const entry = cache.get(vaultPath);
    if (!recorded(entry)) continue;
    const shard = shardOf(vaultPath, entry.result);
    const list = shards.get(shard) ?? [];
    list.push({ path: vaultPath, entry });
    shards.set(shard, list);
  }
  for (const files of shards.values()) files.sort(byPath);
  return shards;
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** The files the streams hold, named by a digest, and which of them the cache changed since it was last in sync. */
interface Members {
  /** The digest of every file the streams hold: what the next build compares (`RecordBasis`). */
  digest: string;
  /** The digest of them less those new to the cache since it was last in sync: what the last build's digest must be. */
  before: string;
  /** Changed paths (`ParseCache.changesSinceSync`) among the streams' files, with their stream. */
  changed: Map<string, string>;
}

/**
 * The digest of the streams' files (stream names; memories in the stream's order, summaries by path), whether the
 * record lists them or not: a file that joins or leaves a stream without its cache entry changing (an archive move, a
 * memory with a secret now held back) changes it, and the next build looks at every shard. Paths only: reading
 * 21,000 cache entries here cost ~30 ms. A file's entry decides whether the record lists it (`recorded`), so among
 * files whose entry did not change the record lists the same ones. Files new to the cache since it was in sync (a
 * memory added) are left out of `before`: taking them out of the stream leaves the others in their order, so the last
 * build's digest equals `before` when they are all that joined.
 */
function membersOf(streams: readonly RecordedStream[], cache: ParseCache): Members {
  const since = cache.changesSinceSync()?.previous;
  const changed = new Map<string, string>();
  const parts: string[] = [];
  let added = false;
  for (const stream of streams) {
    parts.push(`\0${stream.name}`);
    const start = parts.length;
    for (const memory of stream.memories) parts.push(memory.path);
    const summaries: string[] = [];
    for (const summary of stream.summaries) summaries.push(summary.path);
    parts.push(...summaries.sort());
    for (let i = start; since && i < parts.length; i++) {
      if (!since.has(parts[i]!)) continue;
      changed.set(parts[i]!, stream.name);
      if (since.get(parts[i]!) === undefined) added = true;
    }
  }
  const digest = sha256(parts.join('\n'));
  if (!added) return { digest, before: digest, changed };
  const old = parts.filter((part) => !(since!.has(part) && since!.get(part) === undefined));
  return { digest, before: sha256(old.join('\n')), changed };
}

/**
 * The shards holding a path the parse cache changed since it was last in sync with the store, when the record's state
 * was written from the store at that point (`RecordBasis`: its generation, the header, the same members) and the
 * shards on disk are as that state says (names, sizes, mtimes): each such shard's files are its kept list, less the
 * changed paths, plus the changed paths whose line now goes to it (a changed file's line may leave a shard, join one,
 * or both when its day moved). Undefined when any of it does not hold: every shard is looked at (`planAll`).
 */
function planFromChanges(run: {
  vaultDir: string;
  stateDir: string;
  streams: readonly RecordedStream[];
  cache: ParseCache;
  head: string;
  state: RecordState;
  members: Members;
}): (PlannedShards & { untouched: Record<string, ShardState> }) | undefined {
  const { vaultDir, stateDir, streams, cache, head, state, members } = run;
  const changes = cache.changesSinceSync();
  let basis: (RecordBasis & { generation: number }) | undefined;
  try {
    basis = basisTable(stateDir).get(BASIS_KEY);
  } catch {
    return undefined;
  }
  if (!changes || !basis || basis.generation !== changes.generation || basis.head !== head || basis.members !== members.before)
    return undefined;
  // The shards on disk are those the state names, as it last saw them.
  const inStreams = new Set<string>();
  for (const stream of streams) {
    for (const shard of shardFiles(vaultDir, stream.name)) {
      const key = `${stream.name}/${shard}`;
      const kept = state.shards[key];
      const stat = statOrUndefined(path.join(vaultDir, RECORD_DIR, stream.name, shard));
      if (!kept || !stat || kept.size !== stat.size || kept.mtimeMs !== stat.mtimeMs) return undefined;
      inStreams.add(key);
    }
  }
  if (Object.keys(state.shards).some((key) => !inStreams.has(key))) return undefined;
  // The shards each changed file's line left and went to (the same members then and now: the digest says so).
  const touched = new Map<string, { stream: string; shard: string; joining: ShardFile[] }>();
  const touch = (stream: string, shard: string) => {
    const key = `${stream}/${shard}`;
    let found = touched.get(key);
    if (!found) touched.set(key, (found = { stream, shard, joining: [] }));
    return found;
  };
  for (const [vaultPath, stream] of members.changed) {
    const before = changes.previous.get(vaultPath);
    const now = cache.get(vaultPath);
    if (recorded(before)) touch(stream, shardOf(vaultPath, before.result));
    if (recorded(now)) touch(stream, shardOf(vaultPath, now.result)).joining.push({ path: vaultPath, entry: now });
  }
  const shards = new Map<string, Map<string, ShardFile[]>>();
  const removed = new Map<string, string[]>();
  const files = new Map<string, string[]>();
  const untouched = { ...state.shards };
  const table = filesTable(stateDir);
  for (const [key, { stream, shard, joining }] of touched) {
    const kept = key in state.shards ? table.get(key) : [];
    if (!kept) return undefined;
    const list: ShardFile[] = [...joining];
    for (const vaultPath of kept) {
      if (members.changed.has(vaultPath)) continue;
      const entry = cache.get(vaultPath);
      if (!recorded(entry)) return undefined;
      list.push({ path: vaultPath, entry });
    }
    list.sort(byPath);
    delete untouched[key];
    files.set(
      key,
      list.map((f) => f.path),
    );
    if (list.length > 0) {
      const mine = shards.get(stream) ?? new Map<string, ShardFile[]>();
      mine.set(shard, list);
      shards.set(stream, mine);
    } else if (key in state.shards) removed.set(stream, [...(removed.get(stream) ?? []), shard]);
  }
  return { shards, removed, files, everyShard: false, untouched };
}

/**
 * Whether a shard must be written anew (returned) or is current (its state
 * goes to `next`): current when the recorded digest, size and time still hold,
 * or when the file on disk is a well-formed shard listing the same files with
 * the same hashes (nothing to encode).
 */
function checkShard(
  run: { vaultDir: string; head: string; state: RecordState; next: RecordState },
  shard: { key: string; dir: string; file: string; files: ShardFile[] },
): ChangedShard | undefined {
  const { key, file, files } = shard;
  const mine = {
    digest: shardDigest(
      run.head,
      files.map((f) => [f.path, f.entry] as const),
    ),
    size: 0,
    mtimeMs: 0,
  };
  // Lines are sorted by path as `files` is, so a shard read whole by this process has the digest its files give.
  const before = run.state.shards[key] ?? shardReadWhole(run.vaultDir, key);
  const stat = statOrUndefined(file);
  if (before && stat && before.digest === mine.digest && before.size === stat.size && before.mtimeMs === stat.mtimeMs) {
    run.next.shards[key] = before;
    return undefined;
  }
  const old = knownShard(file, run.head);
  const current =
    old.intact &&
    old.lines.length === files.length &&
    files.every((f, i) => {
      const line = old.lines[i]!;
      // A body parsed since its line was written: the line gains the headings a clone shows it with.
      return line.path === f.path && line.sha256 === f.entry.sha256 && (line.headings || f.entry.headings === undefined);
    });
  if (current) {
    if (stat) run.next.shards[key] = { ...mine, size: stat.size, mtimeMs: stat.mtimeMs };
    return undefined;
  }
  const ours = before !== undefined && stat !== undefined && before.size === stat.size && before.mtimeMs === stat.mtimeMs;
  return { ...shard, old, mine, ours };
}

/**
 * Encodes a changed shard's lines and writes it when its text differs;
 * returns whether it wrote. A file with no blob id (changed since the build
 * read it, git stores other bytes than it holds, no repository) is left out,
 * and a clone reads the file.
 */
function writeShard(vaultDir: string, head: string, shard: ChangedShard, blobs: ReadonlyMap<string, string>, cache: ParseCache): boolean {
  const { dir, file, files, old } = shard;
  const byPath = new Map(old.lines.map((line) => [line.path, line]));
  const lines: string[] = [];
  // A shard as this writer left it (its recorded size and mtime): a line whose file kept its hash and whose headings
  // are in it is what encoding the entry gives again (the header names the parser, time zone and detector), and is
  // kept as it is: encoding ~600 lines read their citations from the store (~20-40 ms an edit).
  const reuse = shard.ours && old.intact;
  for (const { path: vaultPath, entry } of files) {
    const known = byPath.get(vaultPath);
    if (reuse && known?.sha256 === entry.sha256 && known.headings) {
      lines.push(known.text);
      continue;
    }
    const blob = known?.sha256 === entry.sha256 ? known.blob : blobs.get(vaultPath);
    const line = blob && encodeLine(vaultPath, blob, entry.sha256, entry.result, headingsOf(vaultDir, vaultPath, entry, cache));
    if (line) lines.push(line);
  }
  const text = `${head}\n${lines.join('\n')}\n`;
  if (old.text === text) return false;
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(file, text);
  return true;
}

/** A shard whose lines are written anew. */
interface ChangedShard {
  key: string;
  dir: string;
  file: string;
  files: { path: string; entry: CacheEntry }[];
  old: ReturnType<typeof knownShard>;
  mine: ShardState;
  /** The file on disk has the size and mtime this writer recorded for it: its lines are as it wrote them. */
  ours: boolean;
}

/**
 * Git's blob ids of these vault files (path → SHA-256 the line describes), as a commit of them records them. Asked
 * of the backend, never hashed here: git knows the object format (SHA-1 or SHA-256) and the path's filters and
 * line-ending conversion. A file that no longer has the line's SHA-256, or whose stored blob would not hold its bytes
 * (a filter or a conversion: a clone's checkout may differ), gets none; outside a repository, none does.
 */
async function blobIds(
  vaultDir: string,
  wanted: ReadonlyMap<string, string>,
  backend: GitBackend | undefined,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (wanted.size === 0 || !backend) return out;
  const repo = findRepo(vaultDir);
  const prefix = repo && repoRelative(repo, vaultDir);
  if (!repo || prefix === undefined) return out;
  const files: { vaultPath: string; path: string; sha256: string; bytes: Uint8Array }[] = [];
  for (const [vaultPath, expected] of wanted) {
    const read = readVaultFile(vaultDir, vaultPath);
    if (read.ok && sha256(read.bytes) === expected) {
      files.push({ vaultPath, path: prefix ? `${prefix}/${vaultPath}` : vaultPath, sha256: expected, bytes: read.bytes });
    }
  }
  let ids: (string | undefined)[];
  try {
    // Called without a wait before it, the git command starts now (blobsAhead counts on it).
    ids = await backend.blobIds(repo, files);
  } catch {
    return out; // git failed: the lines are left out, a clone reads the files
  }
  for (const [i, file] of files.entries()) {
    const id = ids[i];
    if (!id) continue;
    // The git command hashed the file as it is now: kept only if it still has the bytes the line describes.
    if (backend.kind === 'cli') {
      const again = readVaultFile(vaultDir, file.vaultPath);
      if (!again.ok || sha256(again.bytes) !== file.sha256) continue;
    }
    out.set(file.vaultPath, id);
  }
  return out;
}

/**
 * What `writeRecord` last wrote, per `<stream>/<shard>` (the state store's `record-state` rows of `kv`, outside git;
 * losing them costs one read of the record).
 */
interface RecordState {
  shards: Record<string, ShardState>;
}

const shardStateSchema = z.object({ digest: z.string(), size: z.number(), mtimeMs: z.number() });

function stateTable(stateDir: string) {
  return kvTable(openStateStore(stateDir), 'record-state', zodDecode(shardStateSchema));
}

/** Each shard's files (the digest's: sorted vault paths) as last written, by `<stream>/<shard>`, beside its state. */
function filesTable(stateDir: string) {
  return kvTable(openStateStore(stateDir), 'record-files', zodDecode(z.array(z.string())));
}

/**
 * What the record's state was written from, stored once the build saved the parse cache (`keepRecordBasis`) and
 * removed whenever the state is written: the record's header, the digest of the files it lists (`membersOf`), and the
 * generation of the parse cache's store whose entries it was written from.
 */
export interface RecordBasis {
  head: string;
  members: string;
}

const basisSchema = z.object({ head: z.string(), members: z.string(), generation: z.number() });
const BASIS_KEY = 'basis';

function basisTable(stateDir: string) {
  return kvTable(openStateStore(stateDir), 'record-basis', zodDecode(basisSchema));
}

function readState(stateDir: string): RecordState {
  try {
    return { shards: Object.fromEntries(stateTable(stateDir).entries()) };
  } catch {
    return { shards: {} };
  }
}

/** Keeps the shards' states, writing only those that changed since `before`, with the files lists of `files`. */
function writeState(stateDir: string, before: RecordState, state: RecordState, planned: PlannedShards): void {
  try {
    const table = stateTable(stateDir);
    const lists = filesTable(stateDir);
    // Looking at every shard, the lists of those that changed and of those that have none yet (a record written before
    // lists were kept); else the lists of the shards looked at.
    const listed = planned.everyShard ? new Set(lists.keys()) : undefined;
    openStateStore(stateDir).transaction(() => {
      // The basis is stored again once the cache is saved (`keepRecordBasis`): until then the state is not vouched for.
      basisTable(stateDir).delete(BASIS_KEY);
      for (const key of Object.keys(before.shards)) {
        if (key in state.shards) continue;
        table.delete(key);
        lists.delete(key);
      }
      for (const [key, shard] of Object.entries(state.shards)) {
        const old = before.shards[key];
        const moved = old?.digest !== shard.digest || old.size !== shard.size || old.mtimeMs !== shard.mtimeMs;
        if (moved) table.set(key, shard);
        const list = planned.files.get(key);
        if (list && (!listed || moved || !listed.has(key))) lists.set(key, list);
      }
    });
  } catch {
    // Only a shortcut: the next build reads the shards instead.
  }
}

/** The start of every line: `{"p":<path>,"b":"<blob: SHA-1 or SHA-256>","s":"<sha256>"`, read without parsing the rest. */
const LINE_START = /^\{"p":("(?:[^"\\]|\\.)*"),"b":"([0-9a-f]{40}(?:[0-9a-f]{24})?)","s":"([0-9a-f]{64})"/;

interface KnownLine {
  path: string;
  blob: string;
  sha256: string;
  /** The line holds the body's headings. */
  headings: boolean;
  /** The line as it is. */
  text: string;
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
      lines.push({
        path: String(JSON.parse(match[1]!)),
        blob: match[2]!,
        sha256: match[3]!,
        headings: rows[i]!.includes(',"h":['),
        text: rows[i]!,
      });
    else intact = false;
  }
  return { text, lines, intact };
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The record's uncommitted shards, looked for before the build writes any: `git status` of the record folder costs
 * ~50-120 ms at 20,000 memories (git reads the whole index, and hashes a shard just rewritten), which then runs beside
 * the plan and the rollups instead of after the record is written. `settle` adds the shards `writeRecord` wrote or
 * removed: under the build lock nothing else writes the record, so a shard that differs from HEAD once it is written
 * either differed before the look or was written since. One written back to HEAD's content is named too, and the
 * commit finds nothing to change in it.
 */
export function lookForUncommittedRecord(
  vaultDir: string,
  env?: NodeJS.ProcessEnv,
): { settle(written: readonly string[]): Promise<string[]> } {
  const before = uncommittedRecord(vaultDir, env);
  before.catch(() => undefined); // a build that fails before its commit never asks for it
  return {
    async settle(written) {
      return [...new Set([...(await before), ...written])].sort();
    },
  };
}

/**
 * The record's shards that differ from HEAD (changed, new or removed), as
 * vault paths: what a committing build commits besides its own outputs. It
 * also takes what a build with commits off left behind. Asked of the git
 * backend (`changedUnder`: `git status`, or isomorphic-git's status matrix);
 * empty when git cannot tell (no repository, or the backend failed). Only
 * shard names (`<stream>/<shard>.jsonl`, as `shardFiles` lists them): a
 * temporary file a killed build left beside a shard (`.<shard>.<pid>.<n>.tmp`)
 * or any other file in the folder is never committed.
 */
export async function uncommittedRecord(vaultDir: string, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const repo = findRepo(vaultDir);
  const prefix = repo && repoRelative(repo, vaultDir);
  if (!repo || prefix === undefined) return [];
  const recordDir = prefix ? `${prefix}/${RECORD_DIR}` : RECORD_DIR;
  let changed: string[];
  try {
    changed = await (await gitBackend(env)).changedUnder(repo, recordDir);
  } catch {
    return [];
  }
  const shard = /^[^/]+\/[^./][^/]*\.jsonl$/;
  const inVault = changed
    .filter((file) => file.startsWith(`${recordDir}/`) && shard.test(file.slice(recordDir.length + 1)))
    .map((file) => file.slice(prefix ? prefix.length + 1 : 0));
  return [...new Set(inVault)].sort();
}
