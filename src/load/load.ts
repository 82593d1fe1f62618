import { existsSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../util/hash.js';
import { ParseCache, type CacheEntry } from '../store/cache.js';
import { RECORD_DIR } from '../store/committed-record.js';
import { MIN_FILES_FOR_RECORD, seedFromRecord } from '../store/committed-seed.js';
import { ContentStore } from './content-store.js';
import type { Diagnostic, Memory, StreamState, VaultState } from '../vault/model.js';
import { classifyPath, type FileRole } from '../vault/paths.js';
import { isSummaryFile, type ParsedFile } from './parse-file.js';
import { MIN_FILES_FOR_WORKERS, parseFiles, usesParseWorkers, type FileToParse, type ParsePool, type ParseProgress } from './parse-pool.js';
import { readVaultFile, scanStreams, specialDiagnostic, streamFolders, type ScannedFile } from '../vault/scan.js';
import { heldBackDiagnostics } from '../vault/secrets-check.js';
import type { SecretPolicy } from '../redact/detect.js';

export { ContentStore } from './content-store.js';

export interface LoadOptions {
  /** Absolute path of the vault folder. */
  vaultDir: string;
  /** Absolute path of the state folder (`.memvault`), where the state store keeps the parse cache. */
  stateDir: string;
  timezone: string;
  /** Streams named in the config; folders found in the vault are added. */
  configuredStreams: readonly string[];
  /** The build's worker threads: a large vault is walked there, many changed files are parsed there (parse-pool.ts). */
  pool?: ParsePool;
  /** Progress of the parse of changed files (a cold build of a large vault parses for a while). */
  onParse?: ParseProgress;
  /** `secrets` of the config: its allowlist lets a memory holding a secret through; without it, every such memory is held back. */
  secrets?: SecretPolicy;
  /**
   * `git.record` of the config: a fresh clone may take parse results from the committed record. Off, a record found in
   * the vault is not trusted (it is vault input like any file, and the project did not opt in to it).
   */
  useRecord?: boolean;
  /**
   * The vault's files as `scanStreams(vaultDir, streamNamesOf(options))` found them just before, when the caller walked
   * the vault already: the session-start hook stamps its kept answer with that walk, and a second walk of 20,000 files
   * costs ~0.1 s.
   */
  scanned?: readonly ScannedFile[];
  /**
   * Load `scanned` only, with the parse cache's entries of those files only (`ParseCache.openSome`, never saved): the
   * session-start hook loads the few files its context draws on (hooks/start-parts.ts).
   */
  partial?: boolean;
  /** Where the git backend the committed record asks is chosen (`MEMVAULT_GIT_BACKEND`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export interface LoadStats {
  files: number;
  /** Files read in this run, their frontmatter parsed (cache misses). */
  read: number;
  /**
   * Markdown bodies parsed by the load: the memories among the files read that
   * no summary lists as a source yet (those a build summarizes). Other bodies
   * are parsed when a stage reads them (`ContentStore.parsed`).
   */
  parsed: number;
  /** How many files were read and parsed on worker threads. */
  workerParses: number;
}

export interface LoadedVault {
  state: VaultState;
  content: ContentStore;
  /** The parse cache; the build records the files it writes, then saves it. */
  cache: ParseCache;
  stats: LoadStats;
  /** Problems of the load itself, not of a vault file (an unreadable committed record): reported, not indexed. */
  warnings?: Diagnostic[];
}

/**
 * Stage 1, load: finds every memory and generated summary in the vault. A
 * file whose size and mtime match the parse cache is not read; a file whose
 * content hash matches is not parsed again (`refreshFiles`). Bad files become
 * diagnostics and the rest of the vault still loads. The caller saves the
 * cache (`cache.save()`) once its own writes are recorded in it.
 */
export async function loadVault(options: LoadOptions): Promise<LoadedVault> {
  const sortedStreams = streamNamesOf(options);
  // A large vault is walked and stat-ed on a thread while this one reads the parse cache: at 20,000 files each takes ~150 ms.
  const onThread = options.scanned
    ? undefined
    : options.pool?.scan(options.vaultDir, sortedStreams)?.catch(() => scanStreams(options.vaultDir, sortedStreams));
  const scanned = onThread ?? Promise.resolve(options.scanned ?? scanStreams(options.vaultDir, sortedStreams));
  const cache =
    options.partial && options.scanned
      ? ParseCache.openSome(
          options.stateDir,
          options.timezone,
          options.scanned.map((file) => file.vaultPath),
        )
      : ParseCache.open(options.stateDir, options.timezone);
  const diagnostics: Diagnostic[] = [];
  const found: FoundFile[] = [];
  /** Found files the cache does not hold as they are now. */
  const missed: FoundFile[] = [];
  for (const file of await scanned) {
    const { vaultPath, size, mtimeMs } = file;
    // Links and FIFOs are reported, never read (nor cached: they are looked at again on every load).
    if (file.special) {
      diagnostics.push(specialDiagnostic(vaultPath, file.special));
      continue;
    }
    const entry = cache.get(vaultPath);
    // Classified when it was cached (no ignored path is): 20,000 classifications cost 0.1 s or more of a no-change build.
    if (entry?.size === size && entry.mtimeMs === mtimeMs) found.push({ vaultPath, size, mtimeMs });
    else {
      const role = classifyPath(vaultPath);
      if (role.role === 'ignored') continue;
      const missing = { vaultPath, role, size, mtimeMs };
      found.push(missing);
      missed.push(missing);
    }
  }
  // A fresh clone (no parse cache): what the committed record says of files committed unchanged is not read again.
  const seeded =
    options.useRecord === true && missed.length >= MIN_FILES_FOR_RECORD && existsSync(path.join(options.vaultDir, RECORD_DIR))
      ? await seedFromRecord(options.vaultDir, sortedStreams, missed, cache, options.timezone, options.env)
      : undefined;
  // Seeded from the record, the cache holds no parsed bodies: this build reads the openings the package shows from the
  // bodies' beginnings; the next builds parse those bodies whole once and keep them.
  const content = new ContentStore(options.vaultDir, cache, { openingsFromBeginning: seeded !== undefined });
  // The files the cache holds as they are need nothing more (no load session rechecks them here): only the others are read.
  const stats = await refreshFiles(missed, options, cache, content);
  const paths = found.map((file) => file.vaultPath);
  // Every found file now has an entry: as many entries as files means none to forget (saves a 20,000-path set per build).
  if (cache.size !== paths.length) cache.retain(new Set(paths));
  const state = assembleState(paths, cache, options, diagnostics);
  return { state, content, cache, stats: { files: found.length, ...stats }, warnings: seeded?.warnings ?? [] };
}

/** A file a load found: its vault path, what it is by its place, and its size and mtime. */
export interface FoundFile {
  vaultPath: string;
  /** Absent for a file the parse cache holds with this size and mtime: it is read only if a load session rechecks it. */
  role?: FileRole;
  size: number;
  mtimeMs: number;
}

/** How `LoadSession` takes part in `refreshFiles`: files it holds at their last good parse. */
export interface RefreshHooks {
  /** True: read the file even when its size and mtime match the cache (it is held at an older parse). */
  recheck?(vaultPath: string): boolean;
  /** The cache now holds the file's current content (or its read error). */
  settled?(vaultPath: string): void;
  /** True: keep the cache's `previous` entry instead of this new `result` (an invalid edit of a good file). */
  keepPrevious?(vaultPath: string, result: CacheEntry['result'], previous: CacheEntry | undefined): boolean;
}

/**
 * The steps every load takes for the files it found (`loadVault` for the
 * whole vault, `LoadSession` for the paths that changed): a file whose size
 * and mtime match the cache is trusted; else it is read and hashed, and a new
 * hash is parsed, on the build's worker threads when there are many. Summaries
 * are parsed first: a memory that a summary already lists by its hash (a
 * fresh clone's history, without a parse cache) is read without parsing its
 * markdown, which is left for a stage that needs its text; the others are
 * what the build will summarize, and are parsed at once.
 */
export async function refreshFiles(
  files: readonly FoundFile[],
  options: LoadOptions,
  cache: ParseCache,
  content: ContentStore,
  hooks: RefreshHooks = {},
): Promise<Omit<LoadStats, 'files'>> {
  const summaries: ChangedFile[] = [];
  const memories: ChangedFile[] = [];
  const insideVault = new Map<string, boolean>();
  for (const file of files) {
    const { vaultPath } = file;
    const entry = cache.get(vaultPath);
    if (entry && entry.size === file.size && entry.mtimeMs === file.mtimeMs && !hooks.recheck?.(vaultPath)) continue;
    const read = readVaultFile(options.vaultDir, vaultPath, insideVault);
    if (!read.ok) {
      hooks.settled?.(vaultPath);
      cache.set(vaultPath, unreadEntry(file, read.diagnostic));
      continue;
    }
    const { bytes } = read;
    const hash = sha256(bytes);
    if (entry?.sha256 === hash) {
      cache.set(vaultPath, { ...entry, size: file.size, mtimeMs: file.mtimeMs });
      hooks.settled?.(vaultPath);
      continue;
    }
    const role = file.role ?? classifyPath(vaultPath);
    const changed = { vaultPath, role, bytes, size: file.size, mtimeMs: file.mtimeMs, sha256: hash };
    (isSummaryFile(role, bytes) ? summaries : memories).push(changed);
    // Enough to parse on the workers: start them now, they load remark while the rest of the files are read.
    if (summaries.length + memories.length === MIN_FILES_FOR_WORKERS) options.pool?.start();
  }
  const total = summaries.length + memories.length;
  const progress = options.onParse;
  let parsed = 0;
  const store = async (batch: ChangedFile[], done: number): Promise<void> => {
    const onParsed = (offset: number, results: ParsedFile[]): void => {
      results.forEach(({ result, content: body }, i) => {
        const file = batch[offset + i]!;
        file.bytes = PARSED; // read and parsed: its bytes are not needed again
        if (hooks.keepPrevious?.(file.vaultPath, result, cache.get(file.vaultPath))) return;
        hooks.settled?.(file.vaultPath);
        cache.set(file.vaultPath, { size: file.size, mtimeMs: file.mtimeMs, sha256: file.sha256, result }, body);
        if (body) {
          content.remember(file.sha256, body);
          parsed++;
        }
      });
      // Many bodies parsed (a cold build, an import): to the state store now, read back when a stage needs one.
      content.release(BODIES_HELD);
    };
    await parseFiles(batch, options.timezone, onParsed, options.pool, progress && ((n) => progress(done + n, total)));
  };
  await store(summaries, 0);
  // Few changed memories (an edit, today's notes) are parsed whole; looking at every summary's sources costs more.
  const covered = memories.length >= MIN_FILES_FOR_WORKERS ? coveredMemories(cache) : new Set<string>();
  // A partial load (the session-start hook's) keeps nothing and reads the bodies as text (read/vault.ts `memoryBody`):
  // remark's parse of an edited memory (sentences, headings: the build's) was most of that hook's parse.
  for (const memory of memories) memory.markdown = !options.partial && !covered.has(memory.sha256);
  await store(memories, summaries.length);
  return {
    read: total,
    parsed,
    workerParses:
      (usesParseWorkers(summaries.length, options.pool) ? summaries.length : 0) +
      (usesParseWorkers(memories.length, options.pool) ? memories.length : 0),
  };
}

type ChangedFile = FileToParse & { size: number; mtimeMs: number; sha256: string };

/** The bytes of a file once parsed. */
const PARSED = new Uint8Array(0);

/**
 * Parsed bodies a load holds before it writes them to the state store and lets go of them (`ContentStore.release`):
 * an edit's few stay in memory until the build saves the cache; a cold build of 4,000 memories held every body
 * (~25 MB of live heap on the main thread, several times that in RSS) until its end.
 */
export const BODIES_HELD = 512;

/** Content hashes of the memories the cache's summaries list as sources: content a summary was already made from. */
function coveredMemories(cache: ParseCache): Set<string> {
  const hashes = new Set<string>();
  for (const entry of cache.values()) {
    if (entry.result.type !== 'summary') continue;
    const tier = entry.result.summary.meta.tier;
    if (tier === 'daily' || tier === 'waterfall-recent') for (const source of entry.result.summary.meta.sources) hashes.add(source.sha256);
  }
  return hashes;
}

/** The vault state of the files at `paths` as the cache now holds them (memories held back for a secret left out), plus `diagnostics`. */
export function assembleState(paths: Iterable<string>, cache: ParseCache, options: LoadOptions, diagnostics: Diagnostic[]): VaultState {
  const streams = new Map<string, StreamState>();
  for (const name of streamNamesOf(options)) streams.set(name, { name, memories: [], summaries: new Map() });
  for (const vaultPath of paths) {
    const entry = cache.get(vaultPath);
    const stream = streams.get(vaultPath.slice(0, vaultPath.indexOf('/')));
    if (entry && stream) collect(entry, stream, diagnostics, options.secrets);
  }
  for (const stream of streams.values()) {
    stream.memories.sort(compareMemories);
    diagnostics.push(...duplicateIds(stream.memories));
  }
  diagnostics.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  return { streams, diagnostics };
}

/** The streams of a load, sorted: those named in the config and the folders found in the vault. */
export function streamNamesOf(options: LoadOptions): string[] {
  return streamFolders(options.vaultDir, options.configuredStreams);
}

/**
 * The cache entry of a file that was not read (too large, unreadable): its
 * diagnostic, and an mtime no stat matches, so the next load tries again
 * (a `chmod` changes no mtime).
 */
export function unreadEntry(file: { size: number }, diagnostic: Diagnostic): CacheEntry {
  return { size: file.size, mtimeMs: -1, sha256: '', result: { type: 'invalid', diagnostics: [diagnostic] } };
}

function collect(entry: CacheEntry, stream: StreamState, diagnostics: Diagnostic[], secrets: SecretPolicy | undefined): void {
  const result = entry.result;
  // A memory holding a secret is held back (secrets-check.ts): reported, and in no stream, so no stage sees it.
  const held = result.type === 'memory' ? heldBackDiagnostics(result.memory.path, result.secrets, secrets) : [];
  if (held.length > 0) diagnostics.push(...held);
  else if (result.type === 'memory') stream.memories.push(result.memory);
  else if (result.type === 'summary') stream.summaries.set(result.summary.path, result.summary);
  else diagnostics.push(...result.diagnostics);
}

/** Chronological, then by path: the order memories appear in summaries and the package. */
export function compareMemories(a: Memory, b: Memory): number {
  if (a.day !== b.day) return a.day < b.day ? -1 : 1;
  if (a.minute !== b.minute) return a.minute - b.minute;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

function duplicateIds(memories: readonly Memory[]): Diagnostic[] {
  const byId = new Map<string, Memory>();
  const out: Diagnostic[] = [];
  for (const memory of memories) {
    const first = byId.get(memory.id);
    if (first) {
      out.push({
        path: memory.path,
        line: 1,
        column: 1,
        severity: 'warning',
        reason: `duplicate memory id \`${memory.id}\` (also used by \`${first.path}\`)`,
        hint: 'give one of them a unique `id:` in its frontmatter',
        rule: 'memory/duplicate-id',
      });
    } else byId.set(memory.id, memory);
  }
  return out;
}
