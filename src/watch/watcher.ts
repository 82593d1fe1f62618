import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import { CONFIG_FILE, loadConfig, loadValidConfig } from '../config/load.js';
import { build } from '../pipeline/build.js';
import { addDays, startOfDay, todayIn } from '../time/periods.js';
import { UserError } from '../util/errors.js';
import { acquireBuildLock } from '../util/lock.js';
import { LoadSession } from '../load/load-session.js';
import { commitBatch } from './commit-batch.js';
import type { WatchEvent, WatchOptions } from './events.js';
import { startWatcher, toPosix } from './fs-watch.js';
import { describeChanges, describeWritten, isIgnoredVaultPath } from './paths.js';
import { RecentFiles } from './recent.js';
import { collectChanges, failureEvent, watchErrorEvent } from './rebuild-steps.js';

export { watchCommitMessage } from './commit-batch.js';
export type { RebuildEvent, WatchEvent, WatchOptions } from './events.js';

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

/**
 * Quiet time before a rebuild. Editors finish a save (temp file, rename,
 * backup) within a few milliseconds and file events arrive 2–5 ms after a
 * write; 50 ms merges a save into one rebuild without feeling laggy. A burst
 * that outlasts it (a checkout, an ingest) costs one more rebuild, not a wrong one.
 */
export const DEFAULT_DEBOUNCE_MS = 50;
const LOCK_RETRY_MS = 1000;
const CACHE_SAVE_IDLE_MS = 2000;
/** How often the files reported last are checked for a save the file watcher missed (see recent.ts). */
const RECENT_POLL_MS = 300;

/**
 * The watch loop of one project. `start()` builds once and watches; `stop()`
 * ends after the rebuild in progress.
 *
 * @example
 *   const watcher = new VaultWatcher({ root, onEvent: (event) => console.log(event.type) });
 *   await watcher.start();
 *   process.once('SIGINT', () => void watcher.stop());
 */
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
  private pollTimer: NodeJS.Timeout | undefined;
  /** The files reported last, checked every `RECENT_POLL_MS` for a save chokidar missed. */
  private readonly recent = new RecentFiles();
  private running: Promise<void> | undefined;
  private stopping = false;
  private rebuilds = 0;
  /** `--commit-every`: vault paths written or changed since the last commit, and what each rebuild made. */
  private readonly uncommitted = new Set<string>();
  private uncommittedRebuilds: string[][] = [];
  private committing: Promise<void> | undefined;
  private vaultDir = '';
  private vaultWatcher: FSWatcher | undefined;
  private configWatcher: FSWatcher | undefined;
  private timezone = 'UTC';

  constructor(private readonly options: WatchOptions) {
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  }

  /** Validates the config, starts watching, runs the first build and reports `ready`. Throws a `UserError` when the config is invalid. */
  async start(): Promise<void> {
    const config = await loadValidConfig(this.options.root);
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
    await this.runNow();
    if (this.options.commitEveryMs !== undefined) this.scheduleCommit();
    this.pollTimer = setInterval(() => this.pollRecent(), RECENT_POLL_MS);
    this.pollTimer.unref();
    this.emit({
      type: 'ready',
      vault: path.relative(this.options.root, this.vaultDir) || '.',
      config: CONFIG_FILE,
      files: this.session.fileCount,
    });
  }

  /** Stops watching, lets the rebuild in progress finish (it releases the build lock), saves the parse cache. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const timer of [this.timer, this.saveTimer, this.dayTimer, this.commitTimer]) clearTimeout(timer);
    clearInterval(this.pollTimer);
    await Promise.all([this.vaultWatcher?.close(), this.configWatcher?.close()]);
    await this.running;
    await this.committing;
    // Batched commits: what the last rebuilds wrote is committed before leaving.
    if (this.options.commitEveryMs !== undefined) await this.commitNow();
    await this.saveCache();
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
      else {
        if (this.pending.get(vaultPath) !== 'folder') this.pending.set(vaultPath, 'file');
        this.recent.note(vaultPath, file);
      }
      this.schedule();
    });
  }

  /** Queues the recently reported files whose inode, size or mtime changed since: a save chokidar did not report. */
  private pollRecent(): void {
    if (this.stopping || this.recent.size === 0) return;
    const changed = this.recent.changed((file) => path.join(this.vaultDir, file));
    for (const file of changed) if (!this.pending.has(file)) this.pending.set(file, 'file');
    // Echoes of our own writes and saves that change nothing are dropped by the rebuild, as for chokidar's events.
    if (changed.length > 0) this.schedule();
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

    if (configChanged && !first && !(await this.reloadConfig(requeue))) return false;
    if (!this.configValid) {
      requeue();
      return true; // wait for a config change
    }

    const changes = collectChanges(this.session, this.vaultDir, batch);
    if (changes.size === 0 && !first && !newDay && !configChanged) return false;

    const trigger = first ? 'start' : newDay && changes.size === 0 && !configChanged ? 'new day' : describeChanges(changes, configChanged);
    const started = performance.now();
    try {
      const report = await this.buildNow();
      this.first = false;
      this.rebuilds++;
      this.recordRebuild(report, changes);
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
        this.retryAfterLock(error, first);
        return true;
      }
      this.first = false;
      this.emit(failureEvent(error, trigger));
      return false;
    }
  }

  /**
   * Reads the changed config. An invalid one is reported, the batch put back
   * and the last outputs stay (false); a valid one takes effect, a moved vault folder watched anew.
   */
  private async reloadConfig(requeue: () => void): Promise<boolean> {
    const { config, errors } = await loadConfig(this.options.root);
    if (errors.length > 0) {
      this.configValid = false;
      requeue();
      this.emit({
        type: 'error',
        at: new Date().toISOString(),
        trigger: `${CONFIG_FILE} changed`,
        message: `${CONFIG_FILE} is invalid; the last outputs stay until it is fixed`,
        hint: 'fix the lines listed above and save again',
        diagnostics: errors,
      });
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
    return true;
  }

  /** One build through the watch's load session: package first, no parse cache saved and no commit per rebuild. */
  private buildNow(): ReturnType<typeof build> {
    return build({
      root: this.options.root,
      now: this.options.now ?? new Date(),
      force: this.options.force ?? false,
      ...(this.options.through ? { through: this.options.through } : {}),
      ...(this.options.summarizer ? { summarizer: this.options.summarizer } : {}),
      loader: (loadOptions) => this.session.load(loadOptions),
      // Another build is told it is watch that holds the lock, not a build it could wait for.
      lockCommand: 'memvault watch',
      saveCache: false,
      packageFirst: true,
      // Watch mode never commits per rebuild: `--commit-every` batches what the rebuilds wrote.
      commit: false,
    });
  }

  /**
   * What a rebuild wrote and moved is now known (the echoes are ignored) and
   * part of the next load; with `--commit-every`, it waits for the next batch commit.
   */
  private recordRebuild(report: Awaited<ReturnType<typeof build>>, changes: ReadonlyMap<string, unknown>): void {
    const moves = report.archived ?? [];
    this.session.recordBuild(
      [...report.written, ...moves.map((move) => move.to)],
      moves.map((move) => move.from),
    );
    if (this.options.commitEveryMs === undefined) return;
    for (const file of [...report.written, ...report.historyCopies, ...moves.flatMap((move) => [move.from, move.to]), ...changes.keys()])
      this.uncommitted.add(file);
    this.uncommittedRebuilds.push(describeWritten(report.written));
  }

  /** Another build holds the lock: says so, and tries again after LOCK_RETRY_MS (a first build stays the first). */
  private retryAfterLock(error: UserError, first: boolean): void {
    this.emit({ type: 'waiting', at: new Date().toISOString(), message: `${error.message}; retrying` });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runNow();
    }, LOCK_RETRY_MS);
    if (first) this.first = true;
  }

  private afterRebuilds(): void {
    if (this.stopping) return;
    clearTimeout(this.saveTimer);
    // Writing the parse cache costs ~100 ms at 20,000 memories: do it once edits pause, not after every rebuild.
    this.saveTimer = setTimeout(() => {
      if (!this.running) void this.saveCache();
    }, CACHE_SAVE_IDLE_MS);
    if (this.options.now === undefined) this.scheduleNewDay();
  }

  /** With the wall clock, the day that just ended becomes complete at midnight: rebuild then, so its daily appears without an edit. */
  private scheduleNewDay(): void {
    clearTimeout(this.dayTimer);
    const now = new Date();
    const next = startOfDay(addDays(todayIn(now, this.timezone), 1), this.timezone).getTime() + 1000;
    this.dayTimer = setTimeout(
      () => {
        this.newDay = true;
        void this.runNow();
      },
      Math.min(Math.max(1000, next - now.getTime()), 2 ** 31 - 1),
    );
  }

  /** Saves the parse cache under the build lock (a build running elsewhere writes it too); skipped while another holds the lock. */
  private async saveCache(): Promise<void> {
    let release: (() => Promise<void>) | undefined;
    try {
      release = await acquireBuildLock(path.join(this.options.root, '.memvault'), 'memvault watch (saving the parse cache)');
    } catch {
      return; // another build holds the lock; the next pause retries
    }
    try {
      this.session.save();
    } finally {
      await release();
    }
  }

  private scheduleCommit(): void {
    clearTimeout(this.commitTimer);
    this.commitTimer = setTimeout(() => {
      // Never in the middle of a rebuild: it holds the build lock, and its writes belong to the next commit.
      const run = async (): Promise<void> => {
        await this.running;
        await this.commitNow();
      };
      this.committing = run().finally(() => {
        this.committing = undefined;
        if (!this.stopping) this.scheduleCommit();
      });
    }, this.options.commitEveryMs);
  }

  /** One commit of everything the rebuilds wrote since the last one, under the build lock; nothing when nothing was written. */
  private async commitNow(): Promise<void> {
    if (this.uncommitted.size === 0) return;
    const outcome = await commitBatch({
      root: this.options.root,
      vaultDir: this.vaultDir,
      paths: [...this.uncommitted].sort(),
      rebuilds: this.uncommittedRebuilds,
      now: this.options.now ?? new Date(),
    });
    if (outcome.done) {
      this.uncommitted.clear();
      this.uncommittedRebuilds = [];
    }
    if (outcome.event) this.emit(outcome.event);
  }

  private watchError(error: unknown): void {
    this.emit(watchErrorEvent(error));
  }

  private emit(event: WatchEvent): void {
    this.options.onEvent(event);
  }
}
