import { existsSync, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../util/hash.js';
import { type ParseCache, parseCacheStamp as cacheStamp } from '../store/cache.js';
import type { ContentStore } from './content-store.js';
import { assembleState, loadVault, refreshFiles, type FoundFile, type LoadedVault, type LoadOptions } from './load.js';
import type { Diagnostic } from '../vault/model.js';
import { classifyPath } from '../vault/paths.js';
import { SKIPPED_FOLDERS, specialDiagnostic } from '../vault/scan.js';

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
  private stateDir = '';
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
   * Writes the parse cache to the state store (`.memvault/state.sqlite`), so the next process
   * starts warm. If another process (a build run while watching) saved it
   * since this session read it, this session's copy is stale: it is dropped
   * instead, and the next load starts over from the newer cache.
   */
  save(): void {
    if (!this.cache) return;
    if (cacheStamp(this.stateDir) !== this.stamp) {
      this.reset();
      return;
    }
    this.cache.save();
    this.stamp = cacheStamp(this.stateDir);
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
    const key = JSON.stringify([options.vaultDir, options.stateDir, options.timezone, [...options.configuredStreams].sort()]);
    if (key !== this.key || !this.cache || !this.content) return this.scan(options, key);
    const cache = this.cache;
    const found: FoundFile[] = [];
    for (const vaultPath of [...this.pending].sort()) {
      const role = isLoadablePath(vaultPath) ? classifyPath(vaultPath) : ({ role: 'ignored' } as const);
      const stat = role.role === 'ignored' ? undefined : lstatOrUndefined(path.join(options.vaultDir, vaultPath));
      this.special.delete(vaultPath);
      if (role.role === 'ignored' || !stat?.isFile()) {
        if (stat) this.special.set(vaultPath, specialDiagnostic(vaultPath, stat.isSymbolicLink() ? 'symlink' : 'not-a-file'));
        this.forget(vaultPath);
        continue;
      }
      this.remember(vaultPath);
      found.push({ vaultPath, role, size: stat.size, mtimeMs: stat.mtimeMs });
    }
    this.pending.clear();
    this.gone.clear();
    const stats = await refreshFiles(found, options, cache, this.content, {
      recheck: (vaultPath) => this.held.has(vaultPath),
      settled: (vaultPath) => this.held.delete(vaultPath),
      keepPrevious: (vaultPath, result, previous) => {
        if (!this.settings.keepLastGood || result.type !== 'invalid' || !previous || previous.result.type === 'invalid') return false;
        this.held.set(
          vaultPath,
          result.diagnostics.map((d) => ({ ...d, reason: `${d.reason}; the last good version is used until this is fixed` })),
        );
        return true;
      },
    });
    if (this.forgotten) cache.retain(new Set(this.files));
    this.forgotten = false;
    const diagnostics = [...[...this.held.values()].flat(), ...this.special.values()];
    return {
      state: assembleState(this.files, cache, options, diagnostics),
      content: this.content,
      cache,
      stats: { files: this.files.length, ...stats },
    };
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
    const stamp = cacheStamp(options.stateDir);
    const loaded = await loadVault(options);
    const files = new Set<string>();
    for (const stream of loaded.state.streams.values()) {
      for (const memory of stream.memories) files.add(memory.path);
      for (const summaryPath of stream.summaries.keys()) files.add(summaryPath);
    }
    for (const d of loaded.state.diagnostics) {
      if (loaded.cache.get(d.path)) files.add(d.path);
      else if (d.rule === 'memory/symlink-skipped' || d.rule === 'memory/not-a-file' || d.rule === 'memory/file-name')
        this.special.set(d.path, d);
    }
    this.files = [...files].sort();
    this.cache = loaded.cache;
    this.content = loaded.content;
    this.vaultDir = options.vaultDir;
    this.stateDir = options.stateDir;
    this.stamp = stamp;
    this.key = key;
    return loaded;
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
