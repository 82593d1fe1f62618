import { existsSync, mkdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { CONFIG_FILE, loadConfig } from '../config/load.js';
import type { Summarizer } from '../llm/types.js';
import { build, ConfigInvalidError, type BuildReport } from '../pipeline/build.js';
import { addDays, startOfDay, todayIn } from '../time/periods.js';
import { UserError } from '../util/errors.js';
import { LoadSession } from '../vault/load.js';
import type { Diagnostic } from '../vault/model.js';
import { describeChanges, describeWritten, isIgnoredVaultPath, type Change } from './paths.js';

/**
 * `memvault watch`, the engine: chokidar on the vault and the config, a
 * debounce so an editor's save (temp file, rename, delete-and-recreate)
 * settles into one change, and one rebuild at a time through `build()` with a
 * `LoadSession`, so only what changed is read and only affected outputs are
 * written. Our own writes are recognised by content (the session knows what
 * the build wrote) and never trigger a rebuild. A memory or summary that
 * becomes invalid keeps its last good version until it is fixed, and an
 * invalid config keeps the last outputs: both are reported, nothing else
 * changes.
 */

export interface WatchOptions {
  /** Directory holding `memory.config.yaml`. */
  root: string;
  /** Fixed clock for every rebuild (`--now`, tests); default: the wall clock at each rebuild. */
  now?: Date;
  force?: boolean;
  through?: string;
  /** Quiet time after the last file event before a rebuild starts (default 75 ms). */
  debounceMs?: number;
  /** `--commit-every`: batch commits at this interval (off by default). */
  commitEveryMs?: number;
  /** Injected summarizer (tests); by default the configured profile's. */
  summarizer?: Summarizer;
  onEvent: (event: WatchEvent) => void;
}

export interface RebuildEvent {
  type: 'rebuild';
  /** Wall-clock time the rebuild finished (ISO). */
  at: string;
  /** What triggered it, in words: `main/memories/x.md changed`, `start`, `new day`. */
  trigger: string;
  changes: { path: string; change: Change }[];
  /** Vault-relative files the build wrote, and the same named for people (`daily 2026-02-13`, `package main`, `index`). */
  written: string[];
  outputs: string[];
  /** Problems of the changed files (all problems on the first build and after a config change). */
  diagnostics: Diagnostic[];
  ms: number;
  report: BuildReport;
}

export type WatchEvent =
  | RebuildEvent
  | { type: 'ready'; vault: string; config: string; files: number }
  | { type: 'error'; at: string; trigger: string; message: string; hint?: string; diagnostics: Diagnostic[] }
  | { type: 'waiting'; at: string; message: string }
  | { type: 'note'; at: string; message: string }
  | { type: 'stopped'; at: string; rebuilds: number };

/** Editors finish a save within a few milliseconds; this leaves room for slow disks without feeling laggy. */
export const DEFAULT_DEBOUNCE_MS = 75;
const LOCK_RETRY_MS = 1000;
const CACHE_SAVE_IDLE_MS = 2000;

export class VaultWatcher {
  private readonly session = new LoadSession({ keepLastGood: true });
  private readonly debounceMs: number;
  /** Vault-relative paths reported since the last rebuild, and whether each is a file or a folder. */
  private pending = new Map<string, 'file' | 'folder'>();
  private configChanged = false;
  private configValid = true;
  private newDay = false;
  private first = true;
  private timer: NodeJS.Timeout | undefined;
  private saveTimer: NodeJS.Timeout | undefined;
  private dayTimer: NodeJS.Timeout | undefined;
  private commitTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private rebuilds = 0;
  private vaultDir = '';
  private vaultWatcher: FSWatcher | undefined;
  private configWatcher: FSWatcher | undefined;
  private timezone = 'UTC';

  constructor(private readonly options: WatchOptions) {
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  }

  /** Validates the config, starts watching, runs the first build and reports `ready`. Throws a `UserError` when the config is invalid. */
  async start(): Promise<void> {
    const { config, errors } = await loadConfig(this.options.root);
    if (errors.length > 0) throw new ConfigInvalidError(errors);
    this.timezone = config.timezone;
    this.vaultDir = path.resolve(this.options.root, config.vault);
    mkdirSync(this.vaultDir, { recursive: true });
    this.configWatcher = await startWatcher(
      this.options.root,
      { depth: 0, ignored: (file) => file !== this.options.root && path.basename(file) !== CONFIG_FILE },
      (error) => this.watchError(error),
    );
    this.configWatcher.on('all', (_event, file) => {
      if (path.basename(file) !== CONFIG_FILE) return;
      this.configChanged = true;
      this.schedule();
    });
    await this.watchVault();
    if (this.options.commitEveryMs !== undefined) {
      // TODO(git): build() has no commit option yet. Once it has, run the batched commit here:
      // rebuilds pass `commit: false`, and this timer commits what they wrote since the last commit.
      this.emit({ type: 'note', at: new Date().toISOString(), message: `--commit-every: commits are not available in this version yet; files are written, not committed` });
    }
    await this.runNow();
    this.emit({ type: 'ready', vault: path.relative(this.options.root, this.vaultDir) || '.', config: CONFIG_FILE, files: this.session.fileCount });
  }

  /** Stops watching, lets the rebuild in progress finish (it releases the build lock), saves the parse cache. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const timer of [this.timer, this.saveTimer, this.dayTimer, this.commitTimer]) clearTimeout(timer);
    await Promise.all([this.vaultWatcher?.close(), this.configWatcher?.close()]);
    await this.running;
    this.session.save();
    this.session.reset();
    this.emit({ type: 'stopped', at: new Date().toISOString(), rebuilds: this.rebuilds });
  }

  private async watchVault(): Promise<void> {
    await this.vaultWatcher?.close();
    const vaultDir = this.vaultDir;
    this.vaultWatcher = await startWatcher(
      vaultDir,
      { ignored: (file, stats) => isIgnoredVaultPath(toPosix(path.relative(vaultDir, file)), stats ? stats.isFile() : undefined) },
      (error) => this.watchError(error),
    );
    this.vaultWatcher.on('all', (event, file) => {
      const vaultPath = toPosix(path.relative(vaultDir, file));
      if (vaultPath === '' || vaultPath.startsWith('..')) return;
      if (event === 'addDir' || event === 'unlinkDir') this.pending.set(vaultPath, 'folder');
      else if (this.pending.get(vaultPath) !== 'folder') this.pending.set(vaultPath, 'file');
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.stopping) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runNow();
    }, this.debounceMs);
  }

  /** Starts the rebuild loop unless it is running (it picks up new changes when it finishes). */
  private runNow(): Promise<void> {
    if (!this.running) {
      this.running = this.loop().finally(() => {
        this.running = undefined;
        this.afterRebuilds();
      });
    }
    return this.running;
  }

  private async loop(): Promise<void> {
    // A change that arrives during a build waits for its own debounce (`timer`), then runs in the next loop.
    while (!this.stopping && this.timer === undefined && (this.first || this.newDay || this.configChanged || this.pending.size > 0)) {
      const retry = await this.rebuildOnce();
      if (retry) break;
    }
  }

  /** One rebuild of everything pending. Returns true when it has to be retried later (another build holds the lock). */
  private async rebuildOnce(): Promise<boolean> {
    const batch = this.pending;
    this.pending = new Map();
    const first = this.first;
    const newDay = this.newDay;
    const configChanged = this.configChanged;
    this.newDay = false;
    this.configChanged = false;
    const requeue = (): void => {
      for (const [file, kind] of batch) if (!this.pending.has(file)) this.pending.set(file, kind);
    };

    if (configChanged && !first) {
      const { config, errors } = await loadConfig(this.options.root);
      if (errors.length > 0) {
        this.configValid = false;
        requeue();
        this.emit({ type: 'error', at: new Date().toISOString(), trigger: `${CONFIG_FILE} changed`, message: `${CONFIG_FILE} is invalid; the last outputs stay until it is fixed`, hint: 'fix the lines listed above and save again', diagnostics: errors });
        return false;
      }
      this.configValid = true;
      this.timezone = config.timezone;
      const vaultDir = path.resolve(this.options.root, config.vault);
      if (vaultDir !== this.vaultDir) {
        this.vaultDir = vaultDir;
        mkdirSync(vaultDir, { recursive: true });
        this.session.reset();
        await this.watchVault();
      }
    }
    if (!this.configValid) {
      requeue();
      return true; // wait for a config change
    }

    const changes = new Map<string, Change>();
    // A folder created, renamed or deleted stands for the files in it (then and now).
    const files = new Set<string>();
    for (const [file, kind] of batch) {
      if (kind === 'folder') for (const inside of this.session.filesUnder(file)) files.add(inside);
      else files.add(file);
    }
    for (const file of [...files].sort()) {
      // Echoes of our own writes, and saves that did not change a byte, end here.
      if (this.session.isUnchanged(file)) continue;
      const exists = existsSync(path.join(this.vaultDir, file));
      changes.set(file, !exists ? 'deleted' : this.session.knows(file) ? 'changed' : 'added');
      this.session.invalidate([file]);
    }
    if (changes.size === 0 && !first && !newDay && !configChanged) return false;

    const trigger = first ? 'start' : newDay && changes.size === 0 && !configChanged ? 'new day' : describeChanges(changes, configChanged);
    const started = performance.now();
    try {
      const report = await build({
        root: this.options.root,
        now: this.options.now ?? new Date(),
        force: this.options.force ?? false,
        ...(this.options.through ? { through: this.options.through } : {}),
        ...(this.options.summarizer ? { summarizer: this.options.summarizer } : {}),
        loader: (loadOptions) => this.session.load(loadOptions),
        saveCache: false,
      });
      this.first = false;
      this.rebuilds++;
      // The summaries it wrote are now known (their echoes are ignored) and part of the next load.
      this.session.invalidate(report.written);
      const everything = first || configChanged;
      const changed = new Set([...changes.keys()]);
      this.emit({
        type: 'rebuild',
        at: new Date().toISOString(),
        trigger,
        changes: [...changes].map(([file, change]) => ({ path: file, change })),
        written: report.written,
        outputs: describeWritten(report.written),
        diagnostics: report.diagnostics.filter((d) => everything || changed.has(d.path)),
        ms: Math.round(performance.now() - started),
        report,
      });
      return false;
    } catch (error) {
      if (error instanceof UserError && error.rule === 'lock/busy') {
        requeue();
        this.emit({ type: 'waiting', at: new Date().toISOString(), message: `${error.message}; retrying` });
        clearTimeout(this.timer);
        this.timer = setTimeout(() => {
          this.timer = undefined;
          void this.runNow();
        }, LOCK_RETRY_MS);
        if (first) this.first = true;
        return true;
      }
      this.first = false;
      const diagnostics = error instanceof ConfigInvalidError ? error.diagnostics : [];
      if (error instanceof UserError) this.emit({ type: 'error', at: new Date().toISOString(), trigger, message: error.message, ...(error.hint ? { hint: error.hint } : {}), diagnostics });
      else this.emit({ type: 'error', at: new Date().toISOString(), trigger, message: `internal error: ${error instanceof Error ? (process.env.MEMVAULT_DEBUG ? error.stack : error.message) : String(error)}`, hint: 'this is a bug; the last outputs stay in place', diagnostics });
      return false;
    }
  }

  private afterRebuilds(): void {
    if (this.stopping) return;
    clearTimeout(this.saveTimer);
    // Writing the parse cache costs ~100 ms at 20,000 memories: do it once edits pause, not after every rebuild.
    this.saveTimer = setTimeout(() => this.session.save(), CACHE_SAVE_IDLE_MS);
    if (this.options.now === undefined) this.scheduleNewDay();
  }

  /** With the wall clock, the day that just ended becomes complete at midnight: rebuild then, so its daily appears without an edit. */
  private scheduleNewDay(): void {
    clearTimeout(this.dayTimer);
    const now = new Date();
    const next = startOfDay(addDays(todayIn(now, this.timezone), 1), this.timezone).getTime() + 1000;
    this.dayTimer = setTimeout(() => {
      this.newDay = true;
      void this.runNow();
    }, Math.min(Math.max(1000, next - now.getTime()), 2 ** 31 - 1));
  }

  private watchError(error: unknown): void {
    this.emit({ type: 'note', at: new Date().toISOString(), message: `file watcher: ${error instanceof Error ? error.message : String(error)}` });
  }

  private emit(event: WatchEvent): void {
    this.options.onEvent(event);
  }
}

function startWatcher(
  dir: string,
  options: { depth?: number; ignored: (file: string, stats?: Stats) => boolean },
  onWatchError?: (error: unknown) => void,
): Promise<FSWatcher> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir, { ignoreInitial: true, followSymlinks: false, ...options });
    let ready = false;
    watcher.once('ready', () => {
      ready = true;
      resolve(watcher);
    });
    // After start-up a watcher error (a folder that became unreadable) is not fatal: chokidar keeps the other watches.
    watcher.on('error', (error) => {
      if (!ready) reject(error);
      else onWatchError?.(error);
    });
  });
}

function toPosix(file: string): string {
  return path.sep === '/' ? file : file.split(path.sep).join('/');
}
