import { existsSync } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { CONFIG_FILE } from '../config/file.js';
import { BuildPool, vaultLoadOptions } from '../pipeline/workers/build-pool.js';
import type { SearchIndex } from '../search/index.js';
import { openSearch, type SearchSession } from '../read/search.js';
import { ensureSearchIndex } from '../search/store.js';
import { readConfig, type ReadVault } from '../read/vault.js';
import { LoadSession } from '../load/load-session.js';
import { isIgnoredVaultPath } from '../watch/paths.js';
import { counted } from '../text/plural.js';

/**
 * The vault a long-lived process serves from (`memvault mcp`): loaded once,
 * then kept current. chokidar reports changed files under the vault and the
 * config; they are re-read incrementally (a `LoadSession`: only changed
 * files are parsed) and re-indexed (only changed documents), after a short
 * quiet time. A request waits for a refresh in progress, so an edit saved
 * a moment ago is already answered.
 */

export interface WarmState {
  vault: ReadVault;
  index: SearchIndex;
}

export interface WarmOptions {
  /** Quiet time after the last change before reloading (default 100 ms). */
  debounceMs?: number;
  /** Follow file changes (default true). */
  watch?: boolean;
  /** Where to report what happened (default: nothing). */
  log?: (line: string) => void;
  /** Called after each reload with the new state (the MCP server compares its resources and notifies clients). */
  onReload?: (state: WarmState) => void;
}

export class WarmVault {
  private readonly session = new LoadSession({ keepLastGood: true });
  private state: WarmState | undefined;
  private loading: Promise<WarmState> | undefined;
  private dirty = true;
  private timer: NodeJS.Timeout | undefined;
  private watchers: FSWatcher[] = [];
  private closed = false;
  private vaultWatched = false;
  private searchSession: Promise<SearchSession> | undefined;

  private constructor(
    readonly root: string,
    private readonly options: WarmOptions,
  ) {}

  /** Loads the vault under `root` and, unless `watch: false`, starts following its changes. */
  static async open(root: string, options: WarmOptions = {}): Promise<WarmVault> {
    const warm = new WarmVault(root, options);
    await warm.current();
    if (options.watch !== false) await warm.startWatching();
    return warm;
  }

  /** Absolute path of the vault folder (as the config names it when opened). */
  get vaultDir(): string {
    return this.state!.vault.vaultDir;
  }

  /** The vault and index as they are now (reloaded first when files changed). */
  current(): Promise<WarmState> {
    if (!this.dirty && this.state) return Promise.resolve(this.state);
    this.loading ??= this.reload().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /**
   * The warm search session over the same index (opened on first use, after
   * the vault is current so the index on disk is too).
   */
  async search(): Promise<SearchSession> {
    await this.current();
    this.searchSession ??= openSearch(this.root);
    return this.searchSession;
  }

  /** Vault-relative paths that changed (e.g. a memory this process just wrote): the next request reloads them. */
  invalidate(vaultPaths: Iterable<string>): void {
    this.session.invalidate(vaultPaths);
    this.dirty = true;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.watchers.map((w) => w.close()));
    this.watchers = [];
  }

  private async reload(): Promise<WarmState> {
    // Changes reported while this reload runs mark the state dirty again.
    this.dirty = false;
    const started = performance.now();
    const config = await readConfig(this.root);
    const options = vaultLoadOptions(this.root, config);
    // The first load of a vault whose parse cache is cold parses on worker threads; later loads parse a few files in-process.
    const pool = this.state ? undefined : BuildPool.create();
    let loaded;
    try {
      loaded = await this.session.load({ ...options, ...(pool ? { pool } : {}) });
    } finally {
      pool?.close();
    }
    // Damaged, foreign or unwritable: rebuilt, else indexed in memory; the server never fails because of its index.
    const { loaded: index } = ensureSearchIndex(this.root, loaded);
    this.state = { vault: { root: this.root, config, vaultDir: options.vaultDir, loaded }, index: index.index };
    this.options.log?.(
      `vault loaded: ${counted(loaded.stats.files, 'file')} (${loaded.stats.parsed} parsed) in ${Math.round(performance.now() - started)} ms`,
    );
    this.options.onReload?.(this.state);
    return this.state;
  }

  private schedule(): void {
    this.dirty = true;
    if (this.timer) clearTimeout(this.timer);
    // Reloading ahead of the next request keeps that request fast; a request in between reloads itself.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed) this.current().catch((error: Error) => this.options.log?.(`reload failed: ${error.message}`));
    }, this.options.debounceMs ?? 100);
  }

  private async startWatching(): Promise<void> {
    const vaultDir = this.state!.vault.vaultDir;
    const started: Promise<void>[] = [];
    // An empty project may have no vault folder yet: the project folder's watcher sees it appear and the vault watcher starts then.
    if (existsSync(vaultDir)) started.push(this.watchVault(vaultDir));
    const configWatcher = watch(this.root, {
      ignoreInitial: true,
      depth: 0,
      ignored: (file) => file !== this.root && file !== vaultDir && path.basename(file) !== CONFIG_FILE,
    });
    configWatcher.on('all', (event, file) => {
      if (file === vaultDir) {
        if (event !== 'addDir' || this.vaultWatched) return;
        void this.watchVault(vaultDir);
      }
      // Another vault folder, zone or stream list, or a vault folder that just appeared: start over.
      this.session.reset();
      this.schedule();
    });
    started.push(this.ready(configWatcher));
    await Promise.all(started);
  }

  private async watchVault(vaultDir: string): Promise<void> {
    this.vaultWatched = true;
    const toVault = (file: string): string => path.relative(vaultDir, file).split(path.sep).join('/');
    const vaultWatcher = watch(vaultDir, {
      ignoreInitial: true,
      followSymlinks: false,
      ignored: (file, stats) => file !== vaultDir && isIgnoredVaultPath(toVault(file), stats ? stats.isFile() : undefined),
    });
    vaultWatcher.on('all', (_event, file) => {
      const vaultPath = toVault(file);
      this.session.invalidate(vaultPath.endsWith('.md') ? [vaultPath] : this.session.filesUnder(vaultPath));
      this.schedule();
    });
    await this.ready(vaultWatcher);
  }

  private ready(watcher: FSWatcher): Promise<void> {
    this.watchers.push(watcher);
    watcher.on('error', (error) => this.options.log?.(`file watcher: ${(error as Error).message}`));
    return new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }
}
