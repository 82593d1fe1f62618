import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../util/hash.js';
import { UserError } from '../util/errors.js';
import { ParseCache, type CacheEntry, type ParsedContent } from './cache.js';
import { parseFrontmatter } from './frontmatter.js';
import { parseMarkdown } from './markdown.js';
import { parseMemoryFile } from './memory-file.js';
import type { Diagnostic, Memory, StreamState, Summary, VaultState } from './model.js';
import { classifyPath } from './paths.js';
import { extractSentences } from './sentences.js';
import { parseFiles, type FileToParse } from './parse-pool.js';

export interface LoadOptions {
  /** Absolute path of the vault folder. */
  vaultDir: string;
  /** Absolute path of the parse cache folder (`.memvault/cache`). */
  cacheDir: string;
  timezone: string;
  /** Streams named in the config; folders found in the vault are added. */
  configuredStreams: readonly string[];
}

export interface LoadStats {
  files: number;
  /** Files read and parsed in this run (cache misses). */
  parsed: number;
}

export interface LoadedVault {
  state: VaultState;
  content: ContentStore;
  /** The parse cache; the build records the files it writes, then saves it. */
  cache: ParseCache;
  stats: LoadStats;
}

const SKIPPED_FOLDERS = new Set(['history', 'waterfall']);

/**
 * Stage 1, load: finds every memory and generated summary in the vault. A
 * file whose size and mtime match the parse cache is not read; a file whose
 * content hash matches is not re-parsed. Bad files become diagnostics and
 * the rest of the vault still loads. The caller saves the cache
 * (`cache.save()`) once its own writes are recorded in it.
 */
export async function loadVault(options: LoadOptions): Promise<LoadedVault> {
  const cache = ParseCache.open(options.cacheDir, options.timezone);
  const content = new ContentStore(options.vaultDir, cache, options.timezone);
  const streams = new Map<string, StreamState>();
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();

  const streamNames = new Set(options.configuredStreams);
  if (existsSync(options.vaultDir)) {
    for (const entry of readdirSync(options.vaultDir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) streamNames.add(entry.name);
    }
  }

  // Pass 1: find files; trust the cache where size and mtime (or else the content hash) are unchanged.
  const found: { vaultPath: string; stream: StreamState }[] = [];
  const toParse: (FileToParse & { size: number; mtimeMs: number; sha256: string })[] = [];
  for (const name of [...streamNames].sort()) {
    const stream: StreamState = { name, memories: [], summaries: new Map() };
    streams.set(name, stream);
    const streamDir = path.join(options.vaultDir, name);
    if (!existsSync(streamDir)) continue;
    for (const relative of listMarkdownFiles(streamDir)) {
      const vaultPath = `${name}/${relative}`;
      const role = classifyPath(vaultPath);
      if (role.role === 'ignored') continue;
      seen.add(vaultPath);
      found.push({ vaultPath, stream });
      const stat = statSync(path.join(options.vaultDir, vaultPath));
      const entry = cache.get(vaultPath);
      if (entry && entry.size === stat.size && entry.mtimeMs === stat.mtimeMs) continue;
      const bytes = readFileSync(path.join(options.vaultDir, vaultPath));
      const hash = sha256(bytes);
      if (entry?.sha256 === hash) cache.set(vaultPath, { ...entry, size: stat.size, mtimeMs: stat.mtimeMs });
      else toParse.push({ vaultPath, role, bytes, size: stat.size, mtimeMs: stat.mtimeMs, sha256: hash });
    }
  }

  // Pass 2: parse what changed, on all cores when there is a lot of it.
  const parsed = await parseFiles(toParse, options.timezone);
  toParse.forEach((file, i) => {
    const { result, content: body } = parsed[i]!;
    cache.set(file.vaultPath, { size: file.size, mtimeMs: file.mtimeMs, sha256: file.sha256, result }, body);
    if (body) content.remember(file.sha256, body);
  });

  for (const { vaultPath, stream } of found) collect(cache.get(vaultPath)!, stream, diagnostics);
  for (const stream of streams.values()) {
    stream.memories.sort(compareMemories);
    diagnostics.push(...duplicateIds(stream.memories));
  }
  cache.retain(seen);
  diagnostics.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  return { state: { streams, diagnostics }, content, cache, stats: { files: seen.size, parsed: toParse.length } };
}

function collect(entry: CacheEntry, stream: StreamState, diagnostics: Diagnostic[]): void {
  const result = entry.result;
  if (result.type === 'memory') stream.memories.push(result.memory);
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

function listMarkdownFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (relative === '' && SKIPPED_FOLDERS.has(entry.name)) continue;
        walk(child);
      } else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) out.push(child);
    }
  };
  walk('');
  return out.sort();
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
    const bytes = readFileSync(path.join(this.vaultDir, memory.path));
    const result = parseMemoryFile(bytes, { path: memory.path, stream: memory.stream, location: memory.location, relativeId: memory.id }, this.timezone);
    if (!result.ok || result.content.memory.sha256 !== memory.sha256) {
      throw new UserError(`memory \`${memory.path}\` changed while the build was running`, 'run the build again', 'vault/changed');
    }
    const parsed = { body: result.content.body, sentences: result.content.sentences };
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

  /** Parses a summary body (one this build wrote, or one read back) and keeps it for the tiers above. */
  rememberSummary(sha: string, body: string): ParsedContent {
    const parsed = { body: body.trim(), sentences: extractSentences(parseMarkdown(body.trim()), { pinned: false }) };
    this.fresh.set(sha, parsed);
    return parsed;
  }
}
