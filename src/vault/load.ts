import { existsSync, lstatSync, readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../util/hash.js';
import { UserError } from '../util/errors.js';
import { ParseCache, type CacheEntry, type ParsedContent } from './cache.js';
import { parseFrontmatter } from './frontmatter.js';
import { parseMemoryFile } from './memory-file.js';
import type { Diagnostic, Memory, StreamState, Summary, VaultState } from './model.js';
import { classifyPath } from './paths.js';
import { parseSummaryBody } from './parse-file.js';
import { MIN_FILES_FOR_WORKERS, parseFiles, usesParseWorkers, type FileToParse, type ParsePool, type ParseProgress } from './parse-pool.js';
import { readVaultFile, scanStreams, SKIPPED_FOLDERS, specialDiagnostic } from './scan.js';
import { heldBackDiagnostics } from './secrets-check.js';
import type { SecretPolicy } from '../redact/detect.js';

export interface LoadOptions {
  /** Absolute path of the vault folder. */
  vaultDir: string;
  /** Absolute path of the parse cache folder (`.memvault/cache`). */
  cacheDir: string;
  timezone: string;
  /** Streams named in the config; folders found in the vault are added. */
  configuredStreams: readonly string[];
  /** The build's worker threads: a large vault is walked there, many changed files are parsed there (parse-pool.ts). */
  pool?: ParsePool;
  /** Progress of the parse of changed files (a cold build of a large vault parses for a while). */
  onParse?: ParseProgress;
  /** `secrets` of the config: its allowlist lets a memory holding a secret through; without it, every such memory is held back. */
  secrets?: SecretPolicy;
}

export interface LoadStats {
  files: number;
  /** Files read and parsed in this run (cache misses). */
  parsed: number;
  /** How many of them were parsed on worker threads. */
  workerParses: number;
}

export interface LoadedVault {
  state: VaultState;
  content: ContentStore;
  /** The parse cache; the build records the files it writes, then saves it. */
  cache: ParseCache;
  stats: LoadStats;
}

/**
 * Stage 1, load: finds every memory and generated summary in the vault. A
 * file whose size and mtime match the parse cache is not read; a file whose
 * content hash matches is not re-parsed. Bad files become diagnostics and
 * the rest of the vault still loads. The caller saves the cache
 * (`cache.save()`) once its own writes are recorded in it.
 */
export async function loadVault(options: LoadOptions): Promise<LoadedVault> {
  const sortedStreams = streamNamesOf(options);
  // A large vault is walked and stat-ed on a thread while this one reads the parse cache: at 20,000 files each takes ~150 ms.
  const onThread = options.pool?.scan(options.vaultDir, sortedStreams)?.catch(() => scanStreams(options.vaultDir, sortedStreams));
  const scanned = onThread ?? Promise.resolve(scanStreams(options.vaultDir, sortedStreams));
  const cache = ParseCache.open(options.cacheDir, options.timezone);
  const content = new ContentStore(options.vaultDir, cache, options.timezone);
  const streams = new Map<string, StreamState>();
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const name of sortedStreams) streams.set(name, { name, memories: [], summaries: new Map() });

  // Pass 1: trust the cache where size and mtime (or else the content hash) are unchanged.
  const found: { vaultPath: string; stream: StreamState }[] = [];
  const toParse: (FileToParse & { size: number; mtimeMs: number; sha256: string })[] = [];
  const insideVault = new Map<string, boolean>();
  for (const file of await scanned) {
    const { vaultPath } = file;
    // Links and FIFOs are reported, never read (nor cached: they are looked at again on every load).
    if (file.special) {
      diagnostics.push(specialDiagnostic(vaultPath, file.special));
      continue;
    }
    const role = classifyPath(vaultPath);
    if (role.role === 'ignored') continue;
    seen.add(vaultPath);
    found.push({ vaultPath, stream: streams.get(vaultPath.slice(0, vaultPath.indexOf('/')))! });
    const entry = cache.get(vaultPath);
    if (entry && entry.size === file.size && entry.mtimeMs === file.mtimeMs) continue;
    const read = readVaultFile(options.vaultDir, vaultPath, insideVault);
    if (!read.ok) {
      cache.set(vaultPath, unreadEntry(file, read.diagnostic));
      continue;
    }
    const { bytes } = read;
    const hash = sha256(bytes);
    if (entry?.sha256 === hash) cache.set(vaultPath, { ...entry, size: file.size, mtimeMs: file.mtimeMs });
    // Enough to parse on the workers: start them now, they load remark while the rest of the files are read.
    else if (toParse.push({ vaultPath, role, bytes, size: file.size, mtimeMs: file.mtimeMs, sha256: hash }) === MIN_FILES_FOR_WORKERS) options.pool?.start();
  }

  // Pass 2: parse what changed, on all cores when there is a lot of it.
  const parsed = await parseFiles(toParse, options.timezone, options.pool, options.onParse);
  toParse.forEach((file, i) => {
    const { result, content: body } = parsed[i]!;
    cache.set(file.vaultPath, { size: file.size, mtimeMs: file.mtimeMs, sha256: file.sha256, result }, body);
    if (body) content.remember(file.sha256, body);
  });

  for (const { vaultPath, stream } of found) collect(cache.get(vaultPath)!, stream, diagnostics, options.secrets);
  for (const stream of streams.values()) {
    stream.memories.sort(compareMemories);
    diagnostics.push(...duplicateIds(stream.memories));
  }
  cache.retain(seen);
  diagnostics.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  return { state: { streams, diagnostics }, content, cache, stats: { files: seen.size, parsed: toParse.length, workerParses: usesParseWorkers(toParse.length, options.pool) ? toParse.length : 0 } };
}

/** The streams of a load, sorted: those named in the config and the folders found in the vault. */
function streamNamesOf(options: LoadOptions): string[] {
  const names = new Set(options.configuredStreams);
  if (existsSync(options.vaultDir)) {
    for (const entry of readdirSync(options.vaultDir, { withFileTypes: true })) if (entry.isDirectory() && !entry.name.startsWith('.')) names.add(entry.name);
  }
  return [...names].sort();
}

/**
 * The cache entry of a file that was not read (too large, unreadable): its
 * diagnostic, and an mtime no stat matches, so the next load tries again
 * (a `chmod` changes no mtime).
 */
function unreadEntry(file: { size: number }, diagnostic: Diagnostic): CacheEntry {
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
      out.push({ path: memory.path, line: 1, column: 1, severity: 'warning', reason: `duplicate memory id \`${memory.id}\` (also used by \`${first.path}\`)`, hint: 'give one of them a unique `id:` in its frontmatter', rule: 'memory/duplicate-id' });
    } else byId.set(memory.id, memory);
  }
  return out;
}

/**
 * Parsed bodies (text and sentences) by content hash: from this run's parses,
 * then the cache's content pack, then by reading the file again.
 */
export class ContentStore {
  private readonly fresh = new Map<string, ParsedContent>();

  constructor(
    private readonly vaultDir: string,
    private readonly cache: ParseCache,
    private readonly timezone: string,
  ) {}

  remember(sha: string, content: ParsedContent): void {
    this.fresh.set(sha, content);
  }

  memory(memory: Memory): ParsedContent {
    const known = this.fresh.get(memory.sha256) ?? this.cache.readContent(memory.path, memory.sha256);
    if (known) return known;
    const read = readVaultFile(this.vaultDir, memory.path);
    const bytes = read.ok ? read.bytes : new Uint8Array();
    const result = parseMemoryFile(bytes, { path: memory.path, stream: memory.stream, location: memory.location, relativeId: memory.id }, this.timezone);
    if (!result.ok || result.content.memory.sha256 !== memory.sha256) {
      throw new UserError(`memory \`${memory.path}\` changed while the build was running`, 'run the build again', 'vault/changed');
    }
    const parsed = { body: result.content.body, sentences: result.content.sentences, headings: result.content.headings };
    this.fresh.set(memory.sha256, parsed);
    return parsed;
  }

  summary(summary: Summary): ParsedContent {
    const known = this.fresh.get(summary.sha256) ?? this.cache.readContent(summary.path, summary.sha256);
    if (known) return known;
    const text = readFileSync(path.join(this.vaultDir, summary.path), 'utf8');
    const parsed = this.rememberSummary(summary.sha256, parseFrontmatter(text).body);
    // Keep it in the content pack: the index reads every weekly and monthly body when it is rebuilt.
    const entry = this.cache.get(summary.path);
    if (entry?.sha256 === summary.sha256) this.cache.set(summary.path, entry, parsed);
    return parsed;
  }

  /** Keeps a summary body (one this build wrote, or one read back) for the tiers above; parses it unless `parsed` is given (a rollup worker did). */
  rememberSummary(sha: string, body: string, parsed?: ParsedContent): ParsedContent {
    const content = parsed ?? parseSummaryBody(body);
    this.fresh.set(sha, content);
    return content;
  }
}

/**
 * A loader that keeps its state between builds, for `memvault watch`. The
 * first load scans the vault like `loadVault`; after that the file list, the
 * parse cache and parsed bodies stay in memory and a load stats and reads only
 * the paths named with `invalidate` (what the file watcher reported and what
 * the last build wrote), so a rebuild costs what changed, not the size of the
 * vault. Changing the load options (a new time zone, vault or streams) starts
 * over with a full scan.
 *
 * With `keepLastGood`, a memory or summary that parsed before and is now
 * invalid (a half-typed edit) keeps its last good parse, so the outputs do not
 * change, and its problem is still reported until the file is fixed.
 *
 * @example
 *   const session = new LoadSession({ keepLastGood: true });
 *   await build({ root, now, loader: (options) => session.load(options) });
 *   session.invalidate(['main/memories/2026-02-13-auth.md']);
 */
export class LoadSession {
  private cache: ParseCache | undefined;
  private content: ContentStore | undefined;
  private vaultDir = '';
  private cacheDir = '';
  /** Size and mtime of `files.json` and `files.log` as this session last read or wrote them. */
  private stamp = '';
  private key = '';
  /** Every vault path the last load found, sorted. */
  private files: string[] = [];
  private readonly pending = new Set<string>();
  /** Files kept at their last good parse, with the problem of their current content. */
  private readonly held = new Map<string, Diagnostic[]>();
  /** Links and non-files found where a memory or summary could be: reported, never read. */
  private readonly special = new Map<string, Diagnostic>();
  /** Files the last build moved away (archived), until the next load forgets them. */
  private readonly gone = new Set<string>();
  /** A file was forgotten since the last load: the parse cache drops it too. */
  private forgotten = false;

  constructor(private readonly settings: { keepLastGood?: boolean } = {}) {}

  /** Vault-relative paths whose files may have been created, changed or deleted since the last load. */
  invalidate(paths: Iterable<string>): void {
    for (const vaultPath of paths) this.pending.add(vaultPath);
  }

  /**
   * After a build: what it wrote (and moved in) is part of the next load, and
   * what it moved away is gone; both are recognised when the file watcher
   * reports them back.
   */
  recordBuild(written: Iterable<string>, removed: Iterable<string> = []): void {
    for (const vaultPath of written) {
      this.pending.add(vaultPath);
      if (isLoadablePath(vaultPath) && lstatOrUndefined(path.join(this.vaultDir, vaultPath))?.isFile()) this.remember(vaultPath);
    }
    for (const vaultPath of removed) {
      this.pending.add(vaultPath);
      this.gone.add(vaultPath);
    }
  }

  /** Files under a folder (vault-relative): those the last load found there and those on disk now, for a folder renamed, deleted or created. */
  filesUnder(vaultPath: string): string[] {
    const prefix = `${vaultPath.replace(/\/+$/, '')}/`;
    const out = new Set<string>();
    for (let i = lowerBound(this.files, prefix); i < this.files.length && this.files[i]!.startsWith(prefix); i++) out.add(this.files[i]!);
    const absolute = path.join(this.vaultDir, vaultPath);
    if (this.vaultDir && existsSync(absolute)) {
      const walk = (relative: string): void => {
        for (const entry of readdirSync(path.join(absolute, relative), { withFileTypes: true })) {
          const child = relative ? `${relative}/${entry.name}` : entry.name;
          if (entry.isDirectory()) walk(child);
          else if (isLoadablePath(`${prefix}${child}`)) out.add(`${prefix}${child}`);
        }
      };
      walk('');
    }
    return [...out].sort();
  }

  /**
   * Writes the parse cache to disk (`.memvault/cache`), so the next process
   * starts warm. If another process (a build run while watching) saved it
   * since this session read it, this session's copy is stale: it is dropped
   * instead, and the next load starts over from the newer cache.
   */
  save(): void {
    if (!this.cache) return;
    if (cacheStamp(this.cacheDir) !== this.stamp) {
      this.reset();
      return;
    }
    this.cache.save();
    this.stamp = cacheStamp(this.cacheDir);
  }

  /** Forgets everything: the next load scans the whole vault again. */
  reset(): void {
    this.cache?.close();
    this.cache = undefined;
    this.content = undefined;
    this.key = '';
    this.files = [];
    this.pending.clear();
    this.held.clear();
    this.special.clear();
    this.gone.clear();
  }

  async load(options: LoadOptions): Promise<LoadedVault> {
    const key = JSON.stringify([options.vaultDir, options.cacheDir, options.timezone, [...options.configuredStreams].sort()]);
    if (key !== this.key || !this.cache || !this.content) return this.scan(options, key);
    const cache = this.cache;
    const content = this.content;
    const toParse: (FileToParse & { size: number; mtimeMs: number; sha256: string })[] = [];
    const insideVault = new Map<string, boolean>();
    for (const vaultPath of [...this.pending].sort()) {
      const role = isLoadablePath(vaultPath) ? classifyPath(vaultPath) : ({ role: 'ignored' } as const);
      const stat = role.role === 'ignored' ? undefined : lstatOrUndefined(path.join(options.vaultDir, vaultPath));
      this.special.delete(vaultPath);
      if (!stat?.isFile()) {
        if (stat) this.special.set(vaultPath, specialDiagnostic(vaultPath, stat.isSymbolicLink() ? 'symlink' : 'not-a-file'));
        this.forget(vaultPath);
        continue;
      }
      this.remember(vaultPath);
      const entry = cache.get(vaultPath);
      if (entry && entry.size === stat.size && entry.mtimeMs === stat.mtimeMs && !this.held.has(vaultPath)) continue;
      const read = readVaultFile(options.vaultDir, vaultPath, insideVault);
      if (!read.ok) {
        this.held.delete(vaultPath);
        cache.set(vaultPath, unreadEntry(stat, read.diagnostic));
        continue;
      }
      const { bytes } = read;
      const hash = sha256(bytes);
      if (entry?.sha256 === hash) {
        cache.set(vaultPath, { ...entry, size: stat.size, mtimeMs: stat.mtimeMs });
        this.held.delete(vaultPath);
      } else if (toParse.push({ vaultPath, role, bytes, size: stat.size, mtimeMs: stat.mtimeMs, sha256: hash }) === MIN_FILES_FOR_WORKERS) options.pool?.start();
    }
    this.pending.clear();
    this.gone.clear();
    const parsed = await parseFiles(toParse, options.timezone, options.pool, options.onParse);
    toParse.forEach((file, i) => {
      const { result, content: body } = parsed[i]!;
      const previous = cache.get(file.vaultPath);
      if (this.settings.keepLastGood && result.type === 'invalid' && previous && previous.result.type !== 'invalid') {
        this.held.set(file.vaultPath, result.diagnostics.map((d) => ({ ...d, reason: `${d.reason}; the last good version is used until this is fixed` })));
        return;
      }
      this.held.delete(file.vaultPath);
      cache.set(file.vaultPath, { size: file.size, mtimeMs: file.mtimeMs, sha256: file.sha256, result }, body);
      if (body) content.remember(file.sha256, body);
    });
    return { state: this.assemble(options, cache), content, cache, stats: { files: this.files.length, parsed: toParse.length, workerParses: usesParseWorkers(toParse.length, options.pool) ? toParse.length : 0 } };
  }

  /**
   * True when the file at `vaultPath` holds what this session last loaded or
   * what the last build wrote there (or is absent and was never loaded): an
   * event for it is an echo of our own write, or an editor touching a file
   * without changing it.
   */
  isUnchanged(vaultPath: string): boolean {
    if (!this.cache) return false;
    const entry = this.cache.get(vaultPath);
    const stat = lstatOrUndefined(path.join(this.vaultDir, vaultPath));
    if (!stat?.isFile()) return (entry === undefined && !this.knows(vaultPath)) || this.gone.has(vaultPath);
    if (!entry || this.held.has(vaultPath)) return false;
    if (entry.size === stat.size && entry.mtimeMs === stat.mtimeMs) return true;
    try {
      return sha256(readFileSync(path.join(this.vaultDir, vaultPath))) === entry.sha256;
    } catch {
      return false;
    }
  }

  private async scan(options: LoadOptions, key: string): Promise<LoadedVault> {
    this.reset();
    const stamp = cacheStamp(options.cacheDir);
    const loaded = await loadVault(options);
    const files = new Set<string>();
    for (const stream of loaded.state.streams.values()) {
      for (const memory of stream.memories) files.add(memory.path);
      for (const summaryPath of stream.summaries.keys()) files.add(summaryPath);
    }
    for (const d of loaded.state.diagnostics) {
      if (loaded.cache.get(d.path)) files.add(d.path);
      else if (d.rule === 'memory/symlink-skipped' || d.rule === 'memory/not-a-file') this.special.set(d.path, d);
    }
    this.files = [...files].sort();
    this.cache = loaded.cache;
    this.content = loaded.content;
    this.vaultDir = options.vaultDir;
    this.cacheDir = options.cacheDir;
    this.stamp = stamp;
    this.key = key;
    return loaded;
  }

  private assemble(options: LoadOptions, cache: ParseCache): VaultState {
    const streams = new Map<string, StreamState>();
    for (const name of streamNamesOf(options)) streams.set(name, { name, memories: [], summaries: new Map() });
    const diagnostics: Diagnostic[] = [];
    for (const vaultPath of this.files) {
      const entry = cache.get(vaultPath);
      const stream = streams.get(vaultPath.slice(0, vaultPath.indexOf('/')));
      if (entry && stream) collect(entry, stream, diagnostics, options.secrets);
    }
    for (const held of this.held.values()) diagnostics.push(...held);
    diagnostics.push(...this.special.values());
    for (const stream of streams.values()) {
      stream.memories.sort(compareMemories);
      diagnostics.push(...duplicateIds(stream.memories));
    }
    if (this.forgotten) cache.retain(new Set(this.files));
    this.forgotten = false;
    diagnostics.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    return { streams, diagnostics };
  }

  /** Files the last load found. */
  get fileCount(): number {
    return this.files.length;
  }

  /** True when the last load found a file at `vaultPath`. */
  knows(vaultPath: string): boolean {
    const i = lowerBound(this.files, vaultPath);
    return this.files[i] === vaultPath;
  }

  private remember(vaultPath: string): void {
    const i = lowerBound(this.files, vaultPath);
    if (this.files[i] !== vaultPath) this.files.splice(i, 0, vaultPath);
  }

  private forget(vaultPath: string): void {
    const i = lowerBound(this.files, vaultPath);
    if (this.files[i] === vaultPath) {
      this.files.splice(i, 1);
      this.forgotten = true;
    }
    this.held.delete(vaultPath);
  }
}

/** What `loadVault` would list: `.md` files of a stream, outside dot folders and the stream's `SKIPPED_FOLDERS`. */
function isLoadablePath(vaultPath: string): boolean {
  const parts = vaultPath.split('/');
  if (parts.length < 2 || parts.some((part) => part.startsWith('.') || part === '')) return false;
  for (let i = 2; i < parts.length; i++) if (SKIPPED_FOLDERS.has(parts.slice(1, i).join('/'))) return false;
  return parts[parts.length - 1]!.toLowerCase().endsWith('.md');
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** Identifies a version of the parse cache on disk (size and mtime of `files.json` and of its log). */
function cacheStamp(cacheDir: string): string {
  return ['files.json', 'files.log']
    .map((name) => {
      const stat = lstatOrUndefined(path.join(cacheDir, name));
      return stat ? `${stat.size}:${stat.mtimeMs}` : 'none';
    })
    .join('/');
}

/** First index of `sorted` whose value is ≥ `value`. */
function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
