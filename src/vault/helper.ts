import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { TokenizerName } from '../util/tokens.js';
import { fromColumns, type ScanColumns, type ScannedFile } from './scan.js';

/**
 * The build helper: a worker thread doing, on the second core, two things a
 * rebuild of a large vault would otherwise do on the main thread. It walks
 * and stats the vault (~150 ms at 20,000 files) while the main thread reads
 * the parse cache; and once the build knows something changed, it loads the
 * tokenizer's tables (~150 ms) while the main thread parses and plans, then
 * counts tokens for it, synchronously (`Atomics.wait` on a shared flag, then
 * `receiveMessageOnPort`), so the pipeline's synchronous code stays as it is.
 *
 * It does nothing else on purpose: on two cores, more work on this thread
 * (loading remark or the tokenizer speculatively) slows the main thread's
 * no-change rebuild, whose V8 background work (GC, compilation) needs the
 * second core too (measured: +50-100 ms).
 *
 * Every call falls back to in-process work if the helper fails (`undefined`
 * or a rejected promise): the helper only ever saves time.
 */

/** A parse cache this big (a vault of a few thousand files or more) makes the helper worth its start-up (~30 ms of another core). */
export const LARGE_CACHE_BYTES = 2 * 1024 * 1024;

/** How long a synchronous call waits before giving up on the helper (it may still be loading the tokenizer on a busy machine). */
const SYNC_TIMEOUT_MS = 20_000;

type HelperRequest = { op: 'scan'; vaultDir: string; streams: string[] } | { op: 'warm'; tokenizer?: TokenizerName };
export type AsyncRequest = HelperRequest & { id: number };
export type AsyncReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
export type SyncRequest = { op: 'count'; text: string; tokenizer: TokenizerName };
export type SyncReply = { ok: true; value: unknown } | { ok: false; error: string };

/** True when `cacheDir` holds a parse cache of a large vault (see `LARGE_CACHE_BYTES`). */
export function isLargeCache(cacheDir: string): boolean {
  try {
    return lstatSync(path.join(cacheDir, 'files.json')).size >= LARGE_CACHE_BYTES;
  } catch {
    return false;
  }
}

export class BuildHelper {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  private broken = false;

  private constructor(private readonly worker: Worker) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.port.unref();
    worker.postMessage({ op: 'connect', port: port2, flag: this.flag }, [port2]);
    worker.on('message', (reply: AsyncReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(new Error(reply.error));
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', () => this.fail(new Error('the build helper exited')));
    // An idle helper never keeps the process alive; a pending request does (see `request`).
    worker.unref();
  }

  /**
   * Starts a helper for the project at `root` when its parse cache is large
   * and the compiled worker exists (tests running the TypeScript sources get
   * undefined, and the build does everything in-process).
   */
  static start(root: string): BuildHelper | undefined {
    const workerUrl = new URL('./helper-worker.js', import.meta.url);
    if (!isLargeCache(path.join(root, '.memvault', 'cache')) || !existsSync(fileURLToPath(workerUrl))) return undefined;
    try {
      return new BuildHelper(new Worker(workerUrl));
    } catch {
      return undefined; // no thread to be had (resource limits): the build does the work itself
    }
  }

  /** Walks and stats the vault's streams (what `scanStreams` does). */
  async scan(vaultDir: string, streams: readonly string[]): Promise<ScannedFile[]> {
    return fromColumns((await this.request({ op: 'scan', vaultDir, streams: [...streams] })) as ScanColumns);
  }

  /** Loads a tokenizer's tables on the helper now (the build found changes: it will count). */
  warmTokenizer(tokenizer?: TokenizerName): void {
    this.request({ op: 'warm', ...(tokenizer ? { tokenizer } : {}) }).catch(() => undefined);
  }

  /** `countTokens` on the helper; undefined if the helper cannot answer (count in-process then). */
  countTokens(text: string, tokenizer: TokenizerName): number | undefined {
    return this.call({ op: 'count', text, tokenizer }) as number | undefined;
  }

  close(): void {
    this.broken = true;
    this.port.close();
    void this.worker.terminate();
  }

  private request(message: HelperRequest): Promise<unknown> {
    if (this.broken) return Promise.reject(new Error('the build helper is not available'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ ...message, id } satisfies AsyncRequest);
    });
  }

  private call(request: SyncRequest): unknown {
    if (this.broken) return undefined;
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(request);
    const waited = Atomics.wait(this.flag, 0, 0, SYNC_TIMEOUT_MS);
    const reply = receiveMessageOnPort(this.port)?.message as SyncReply | undefined;
    if (waited === 'timed-out' || !reply || !reply.ok) {
      // A late answer must never be taken for the next call's: stop using the helper.
      this.broken = true;
      return undefined;
    }
    return reply.value;
  }

  private fail(error: Error): void {
    this.broken = true;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
