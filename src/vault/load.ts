import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../util/hash.js';
import { ParseCache, type CacheEntry, type CachedResult, type ParsedContent } from './cache.js';
import { parseFrontmatter } from './frontmatter.js';
import { parseMarkdown } from './markdown.js';
import { parseMemoryFile } from './memory-file.js';
import type { Diagnostic, Memory, StreamState, Summary, VaultState } from './model.js';
import { classifyPath } from './paths.js';
import { extractSentences } from './sentences.js';
import { parseSummaryFile } from './summary-file.js';

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
 * (`cache.save()`, `content.flushNewContent()`) once its writes are recorded.
 */
export function loadVault(options: LoadOptions): LoadedVault {
  const cache = ParseCache.open(options.cacheDir, options.timezone);
  const content = new ContentStore(options.vaultDir, cache, options.timezone);
  const streams = new Map<string, StreamState>();
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  let parsed = 0;

  const streamNames = new Set(options.configuredStreams);
  if (existsSync(options.vaultDir)) {
    for (const entry of readdirSync(options.vaultDir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) streamNames.add(entry.name);
    }
  }

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
      const absolute = path.join(options.vaultDir, vaultPath);
      const stat = statSync(absolute);
      let entry = cache.get(vaultPath);
      if (!entry || entry.size !== stat.size || entry.mtimeMs !== stat.mtimeMs) {
        const bytes = readFileSync(absolute);
        const hash = sha256(bytes);
        if (entry?.sha256 !== hash) {
          parsed++;
          entry = { size: stat.size, mtimeMs: stat.mtimeMs, sha256: hash, result: parseFile(bytes, vaultPath, role, options.timezone, content) };
        } else {
          entry = { ...entry, size: stat.size, mtimeMs: stat.mtimeMs };
        }
        cache.set(vaultPath, entry);
      }
      collect(entry, stream, diagnostics);
    }
    stream.memories.sort(compareMemories);
    diagnostics.push(...duplicateIds(stream.memories));
  }
  cache.retain(seen);
  diagnostics.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  return { state: { streams, diagnostics }, content, cache, stats: { files: seen.size, parsed } };
}

function parseFile(bytes: Buffer, vaultPath: string, role: ReturnType<typeof classifyPath>, timezone: string, content: ContentStore): CachedResult {
  if (role.role === 'memory') {
    const result = parseMemoryFile(bytes, { path: vaultPath, stream: role.stream, location: role.location, relativeId: role.relativeId }, timezone);
    if (!result.ok) return { type: 'invalid', diagnostics: result.diagnostics };
    content.remember(result.content.memory.sha256, { body: result.content.body, sentences: result.content.sentences });
    return { type: 'memory', memory: result.content.memory };
  }
  if (role.role === 'summary') {
    const result = parseSummaryFile(bytes.toString('utf8'), vaultPath);
    if (!result.ok) return { type: 'invalid', diagnostics: result.diagnostics };
    return { type: 'summary', summary: result.summary };
  }
  return { type: 'invalid', diagnostics: [] };
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
 * then the on-disk cache, then by reading the file again.
 */
export class ContentStore {
  private readonly fresh = new Map<string, ParsedContent>();
  private readonly pending = new Map<string, ParsedContent>();

  constructor(
    private readonly vaultDir: string,
    private readonly cache: ParseCache,
    private readonly timezone: string,
  ) {}

  remember(sha: string, content: ParsedContent): void {
    this.fresh.set(sha, content);
    this.pending.set(sha, content);
  }

  /** Persists parsed bodies of this run to the content cache. */
  flushNewContent(): void {
    for (const [sha, content] of this.pending) this.cache.writeContent(sha, content);
    this.pending.clear();
  }

  memory(memory: Memory): ParsedContent {
    const known = this.fresh.get(memory.sha256) ?? this.cache.readContent(memory.sha256);
    if (known) return known;
    const bytes = readFileSync(path.join(this.vaultDir, memory.path));
    const result = parseMemoryFile(bytes, { path: memory.path, stream: memory.stream, location: memory.location, relativeId: memory.id }, this.timezone);
    if (!result.ok) throw new Error(`memory \`${memory.path}\` changed while the build was running; run the build again`);
    const parsed = { body: result.content.body, sentences: result.content.sentences };
    this.fresh.set(memory.sha256, parsed);
    return parsed;
  }

  summary(summary: Summary): ParsedContent {
    const known = this.fresh.get(summary.sha256) ?? this.cache.readContent(summary.sha256);
    if (known) return known;
    const text = readFileSync(path.join(this.vaultDir, summary.path), 'utf8');
    const body = parseFrontmatter(text).body.trim();
    const parsed = { body, sentences: extractSentences(parseMarkdown(body), { pinned: false }) };
    this.remember(summary.sha256, parsed);
    this.flushNewContent();
    return parsed;
  }

  /** Records the parsed body of a summary this build just wrote, so the tiers above need not re-read it. */
  rememberSummary(sha: string, body: string): ParsedContent {
    const parsed = { body: body.trim(), sentences: extractSentences(parseMarkdown(body.trim()), { pinned: false }) };
    this.remember(sha, parsed);
    return parsed;
  }
}
