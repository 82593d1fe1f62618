import { existsSync, lstatSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Tinypool, { type TinypoolWorker } from 'tinypool';
import type { SummarySource, SummaryUsage } from '../../llm/types.js';
import type { ParsedContent } from '../../store/cache.js';
import type { LoadedVault, LoadOptions } from '../../load/load.js';
// Here for the commands that load the vault with threads; the session-start hook's partial load takes it alone (read/vault.ts).
export { vaultLoadOptions } from '../../load/options.js';
import type { Diagnostic, Memory } from '../../vault/model.js';
import type { ParsedFile } from '../../load/parse-file.js';
import type { FileToParse, OnParsed, ParsePool, ParseProgress } from '../../load/parse-pool.js';
import { fromColumns, type ScanColumns, type ScannedFile } from '../../vault/scan.js';
import { StageClock } from '../build-timings.js';
import type { RollupJob } from '../calendar/plan.js';
import type { RollupResult, RollupSettings } from '../calendar/rollup.js';
import { STATE_FILE } from '../../store/database.js';

/**
 * The build's worker threads, on tinypool (build-worker.ts is their one entry
 * file). One pool for the whole build, started by the first stage with enough
 * work: a cold build sends it the files to parse, then each tier's rollups
 * (embedded summarizer only), and the threads load remark, the tokenizer
 * tables and the summarizer once, not once per stage.
 *
 * tinypool gives what a hand-made pool got wrong: a task that throws, or a
 * thread that dies under it, fails that task only (tinypool replaces the
 * thread and later tasks run), and idle threads never keep the process alive.
 * Nothing here blocks the main thread waiting for a worker.
 */

const MAX_WORKERS = 8;
/** Files per parse task: small enough that the threads finish together, large enough that messages cost little. */
const PARSE_CHUNK = 64;
/** A state store this big (a vault of a few thousand files or more) makes walking the vault on another thread worth a thread's start-up. */
export const LARGE_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * The parse tasks for `files`: contiguous chunks (each task's files in one
 * folder region) of `PARSE_CHUNK`, the last `2 × threads` chunks' worth cut
 * into quarters, so the threads run out of work within a small chunk of each
 * other instead of one idling while the other parses its last 64 files
 * (~0.35 s of each thread at 4,000 memories, under load).
 */
export function parseChunks(files: readonly FileToParse[], threads: number): { start: number; files: FileToParse[] }[] {
  const chunks: { start: number; files: FileToParse[] }[] = [];
  const tail = Math.max(0, files.length - 2 * threads * PARSE_CHUNK);
  for (let start = 0; start < files.length; ) {
    const size = start < tail ? Math.min(PARSE_CHUNK, tail - start) : PARSE_CHUNK / 4;
    chunks.push({ start, files: files.slice(start, start + size) });
    start += size;
  }
  return chunks;
}

export type RollupSettingsForWorkers = Omit<RollupSettings, 'summarizer'>;

/** A task for a build worker. */
export type BuildTask =
  | { kind: 'parse'; timezone: string; files: FileToParse[] }
  | { kind: 'rollup'; settings: RollupSettingsForWorkers; job: RollupJob; sources: SummarySource[] }
  | { kind: 'scan'; vaultDir: string; streams: string[] }
  | { kind: 'near-duplicates'; vaultDir: string; stream: string; memories: Memory[]; days: string[] };

/**
 * A rollup's outcome as a worker sends it: the result (without the job, which
 * the main thread has) and the parsed summary body, or the `RollupError` it threw.
 */
export type RollupAnswer =
  | { ok: true; result: Omit<RollupResult, 'job'>; parsed: ParsedContent }
  | { ok: false; kind: string; message: string; usage: SummaryUsage; attempts: number };

export type BuildAnswer = ParsedFile[] | RollupAnswer | ScanColumns | Diagnostic[];

/** A build thread's answer with the time its stages took (build-timings.ts); the pool adds them up in `stageMs`. */
export interface TimedAnswer {
  answer: BuildAnswer;
  stageMs: Record<string, number>;
}

function isTimed(value: unknown): value is TimedAnswer {
  return typeof value === 'object' && value !== null && 'stageMs' in value && 'answer' in value;
}

/** What a worker thread is told when it starts: a scan thread loads no more than the walk needs. */
export interface BuildWorkerData {
  scanOnly: boolean;
}

export interface BuildPoolOptions {
  /**
   * The project root: when its parse cache is large (`LARGE_CACHE_BYTES`), a
   * thread starts now to walk and stat the vault (`scan`) while the main thread
   * reads the cache (~150 ms each at 20,000 files).
   */
  scanRoot?: string;
  /** The worker module (tests); default the compiled build-worker.js next to this file. */
  worker?: URL;
  /** Threads; default `availableParallelism()`, at most 8. */
  size?: number;
}

/**
 * Whether a thread beside the main one finds a core of its own: the last minute's load average (the build's main
 * thread included) leaves at least half a core free. Work moved to the scan thread costs more CPU there than on the
 * main thread (its code is cold: ~120 against ~70 ms for the near-duplicate look at 20,000 memories): on a machine
 * whose cores are all busy it only adds to the load, and the build keeps it on its main thread.
 */
export function coreToSpare(load: number = loadavg()[0] ?? 0, cores: number = availableParallelism()): boolean {
  return load <= cores - 0.5;
}

/** True when `stateDir` holds the state store of a large vault (see `LARGE_CACHE_BYTES`). */
export function isLargeCache(stateDir: string): boolean {
  try {
    return lstatSync(path.join(stateDir, STATE_FILE)).size >= LARGE_CACHE_BYTES;
  } catch {
    return false;
  }
}

/**
 * Loads the vault with worker threads for a cold parse cache (commands other
 * than `build`: `status`, `compact`); the threads are stopped once it is loaded.
 */
export async function loadVaultWithWorkers(options: LoadOptions): Promise<LoadedVault> {
  const [{ loadVault }, pool] = [await import('../../load/load.js'), BuildPool.create()];
  try {
    return await loadVault({ ...options, ...(pool ? { pool } : {}) });
  } finally {
    pool?.close();
  }
}

/**
 * tinypool 2.2's destroy() waits on each thread with `events.once(thread, 'exit')`, whose error path calls
 * `thread.removeListener`, a method tinypool's thread wrapper lacks: a thread failing while it was being stopped
 * became an uncaught TypeError that ended the process (seen in CI). The wrapper gets the method, forwarded to
 * the Worker it wraps (its `thread` field).
 */
function giveRemoveListener(thread: TinypoolWorker): void {
  const wrapper = thread as TinypoolWorker & {
    removeListener?: (event: string, listener: (...args: unknown[]) => void) => unknown;
    thread?: { removeListener?: (event: string, listener: (...args: unknown[]) => void) => unknown };
  };
  const inner = wrapper.thread;
  if (typeof wrapper.removeListener === 'function' || typeof inner?.removeListener !== 'function') return;
  wrapper.removeListener = (event, listener) => inner.removeListener!(event, listener);
}

export class BuildPool implements ParsePool {
  private workers: Tinypool | undefined;
  private scanner: Tinypool | undefined;
  /** The scan thread walked the vault: it is kept for the near-duplicate look (`nearDuplicatesBeside`) until `close`. */
  private scanned = false;
  /** Why a pool was given up (a thread failed outside any task: its module did not load): the tasks waiting on it fail with that. */
  private readonly failures = new WeakMap<Tinypool, Error>();
  /** Pools being stopped on purpose: their threads' exits are expected. */
  private readonly stopping = new WeakSet<Tinypool>();
  private readonly watched = new WeakSet<TinypoolWorker>();
  private closed = false;
  /** Time of each stage on the build threads so far, summed over them (`build --json` → `stats.stages`). */
  readonly stageMs = new StageClock();
  /** Whether the vault is walked on a thread of its own (a large vault, see `BuildPoolOptions.scanRoot`). */
  readonly scans: boolean;

  private constructor(
    private readonly url: URL,
    readonly size: number,
    scanRoot: string | undefined,
  ) {
    if (scanRoot !== undefined && isLargeCache(path.join(scanRoot, '.memvault'))) {
      try {
        this.scanner = this.pool(1, { scanOnly: true });
      } catch {
        // No thread to be had (resource limits): the main thread walks the vault itself.
      }
    }
    this.scans = this.scanner !== undefined;
  }

  /**
   * A pool of `availableParallelism()` threads (at most 8), not started yet
   * (but for the scan thread, see `scanRoot`); none on a single core, or when
   * the compiled worker is missing (tests run the TypeScript sources:
   * everything stays in-process there).
   */
  static create(options: BuildPoolOptions = {}): BuildPool | undefined {
    const url = options.worker ?? new URL('./build-worker.js', import.meta.url);
    const size = options.size ?? Math.min(availableParallelism(), MAX_WORKERS);
    if (size < 2 || !existsSync(fileURLToPath(url))) return undefined;
    return new BuildPool(url, size, options.scanRoot);
  }

  /** Whether the build threads are running already: then even a few tasks are worth sending. */
  get started(): boolean {
    return this.workers !== undefined;
  }

  /** Starts the build threads ahead of their first task: they load remark, the tokenizer and the summarizer meanwhile. */
  start(): void {
    if (this.closed || this.workers) return;
    this.workers = this.pool(this.size, { scanOnly: false });
  }

  /**
   * Walks and stats the vault's streams on the scan thread (what `scanStreams` does), once; undefined without one.
   * The thread is kept for the build's near-duplicate look (`nearDuplicatesBeside`); a walk that fails stops it.
   */
  scan(vaultDir: string, streams: readonly string[]): Promise<ScannedFile[]> | undefined {
    const scanner = this.scanner;
    if (!scanner || this.scanned) return undefined;
    this.scanned = true;
    const task: BuildTask = { kind: 'scan', vaultDir, streams: [...streams] };
    return this.runOn(scanner, task)
      .then((columns) => fromColumns(columns as ScanColumns))
      .catch((error: unknown) => {
        this.stopScanThread();
        throw error;
      });
  }

  /** Whether the scan thread is there for `nearDuplicatesBeside` (it walked the vault, and nothing stopped it). */
  get looksBeside(): boolean {
    return this.scanned && this.scanner !== undefined && !this.closed;
  }

  /**
   * The near-duplicate look of an edit's build (maintain/build-check.ts) on the scan thread, whose walk is done: beside
   * the rollups on the second core, not before them on the main thread (~70 ms at 20,000 memories). The build threads
   * (`nearDuplicates`) are not started for it: they load remark, the tokenizer and the summarizer first.
   */
  nearDuplicatesBeside(vaultDir: string, stream: string, memories: readonly Memory[], days: ReadonlySet<string>): Promise<Diagnostic[]> {
    if (!this.looksBeside) return Promise.reject(new Error('the scan thread is not running'));
    const task: BuildTask = { kind: 'near-duplicates', vaultDir, stream, memories: [...memories], days: [...days] };
    return this.runOn(this.scanner!, task) as Promise<Diagnostic[]>;
  }

  /** Stops the scan thread (the build needs it no more); `close` does it otherwise. */
  stopScanThread(): void {
    const scanner = this.scanner;
    this.scanner = undefined;
    if (scanner) this.stop(scanner);
  }

  async parse(files: readonly FileToParse[], timezone: string, onParsed: OnParsed, onProgress?: ParseProgress): Promise<void> {
    const chunks = parseChunks(files, this.size);
    let done = 0;
    onProgress?.(done, files.length);
    // Every chunk is queued at once (the threads never wait for this one); results are handed on in file order.
    const tasks: (Promise<ParsedFile[]> | undefined)[] = chunks.map(async ({ files: chunk }) => {
      const results = (await this.run({ kind: 'parse', timezone, files: chunk })) as ParsedFile[];
      onProgress?.((done += chunk.length), files.length);
      return results;
    });
    // A failed task fails the parse below; the others' rejections are not left unhandled meanwhile.
    for (const task of tasks) task?.catch(() => {});
    for (let i = 0; i < tasks.length; i++) {
      const results = await tasks[i]!;
      // A settled promise holds its results: let go of it, or every parsed body stays until the last chunk is back.
      tasks[i] = undefined;
      onParsed(chunks[i]!.start, results);
    }
  }

  rollup(job: RollupJob, sources: SummarySource[], settings: RollupSettingsForWorkers): Promise<RollupAnswer> {
    return this.run({ kind: 'rollup', settings, job, sources }) as Promise<RollupAnswer>;
  }

  /**
   * The near-duplicate look of a build (maintain/build-check.ts) on a build thread, beside the rollups: in a cold
   * build it read every memory again and compared them on the main thread while the threads waited (3.3 s of 4,000).
   */
  nearDuplicates(vaultDir: string, stream: string, memories: readonly Memory[], days: ReadonlySet<string>): Promise<Diagnostic[]> {
    return this.run({ kind: 'near-duplicates', vaultDir, stream, memories: [...memories], days: [...days] }) as Promise<Diagnostic[]>;
  }

  /** Runs one task on the build threads (starting them if need be); it fails alone if it throws or its thread dies. */
  run(task: BuildTask): Promise<BuildAnswer> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    this.start();
    return this.runOn(this.workers!, task);
  }

  /** Stops the threads; tasks still queued fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const pool of [this.workers, this.scanner]) if (pool) this.stop(pool);
  }

  private async runOn(pool: Tinypool, task: BuildTask): Promise<BuildAnswer> {
    this.watchExits(pool);
    try {
      const answer = (await pool.run(task)) as TimedAnswer | BuildAnswer;
      if (!isTimed(answer)) return answer;
      this.stageMs.merge(answer.stageMs);
      return answer.answer;
    } catch (error) {
      // A thread that died was replaced by then: watch the new one too.
      this.watchExits(pool);
      throw this.failures.get(pool) ?? error;
    }
  }

  /**
   * tinypool fails a task whose thread throws an uncaught error, but not one whose thread exits quietly
   * (`process.exit` in a dependency): that task would wait forever. An exit nobody asked for is turned into the
   * thread's error, which tinypool handles as a death: that thread's task fails, a new thread takes the rest.
   */
  private watchExits(pool: Tinypool): void {
    for (const thread of pool.threads) {
      if (this.watched.has(thread)) continue;
      this.watched.add(thread);
      let failed = false;
      thread.once('error', () => (failed = true));
      thread.once('exit', (code: number) => {
        if (!failed && !this.stopping.has(pool))
          thread.emit('error', new Error(`a build worker thread exited (code ${code}) in the middle of its task`));
      });
    }
  }

  private stop(pool: Tinypool): void {
    this.stopping.add(pool);
    for (const thread of pool.threads) giveRemoveListener(thread);
    // A thread that fails while it stops rejects destroy() with its error: it is being stopped anyway.
    pool.destroy().catch(() => {});
  }

  private pool(threads: number, workerData: BuildWorkerData): Tinypool {
    // As many threads from start to close: tinypool would otherwise stop a thread the moment it is idle (between two stages).
    const pool = new Tinypool({ filename: this.url.href, minThreads: threads, maxThreads: threads, workerData });
    pool.on('error', (error: Error) => {
      // A thread failed with no task on it: its module did not load, and tinypool would not start another.
      // Fail what waits for it; the next task gets a fresh pool.
      if (!this.failures.has(pool)) this.failures.set(pool, error);
      if (this.workers === pool) this.workers = undefined;
      if (this.scanner === pool) this.scanner = undefined;
      this.stop(pool);
    });
    return pool;
  }
}
