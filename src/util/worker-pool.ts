import { Worker } from 'node:worker_threads';

/** What a pool worker answers for each task: its answer, or the error that stopped it. */
export type PoolReply<Answer> = { id: number; answer: Answer } | { id: number; error: string };

/** What a pool worker is sent. */
export interface PoolRequest<Task> {
  id: number;
  task: Task;
}

interface Pending<Task, Answer> {
  id: number;
  task: Task | (() => Task);
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

interface PoolWorker<Task, Answer> {
  worker: Worker;
  busy: Pending<Task, Answer> | undefined;
}

/**
 * A fixed number of worker threads taking tasks from one queue. They start
 * on the first task (or `start()`) and live until `close()`, so a build that parses files
 * and then rolls up several tiers loads the workers' modules (remark, the
 * tokenizer tables, the summarizer) once, not once per stage. A free worker
 * takes the next task, so a stage ends when the work does, not when the
 * slowest of fixed shares does.
 *
 * The worker script answers every `PoolRequest` with one `PoolReply`. An
 * idle pool does not keep the process alive.
 */
export class WorkerPool<Task, Answer> {
  private readonly workers: PoolWorker<Task, Answer>[] = [];
  private readonly queue: Pending<Task, Answer>[] = [];
  private nextId = 0;
  /** Set when a worker died: every task from then on fails with it. */
  private failure: Error | undefined;
  private closed = false;

  constructor(
    private readonly url: URL,
    readonly size: number,
  ) {}

  /** Whether the workers are running (started, or a task was sent): more tasks cost no start-up. */
  get started(): boolean {
    return this.workers.length > 0;
  }

  /**
   * Queues a task. A function is called when a worker is free to take it:
   * the main thread then prepares each task just in time, and answers in
   * between, instead of preparing all of them before the workers get more
   * than one each.
   */
  run(task: Task | (() => Task)): Promise<Answer> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Answer>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.start();
      this.dispatch();
    });
  }

  /** Starts the workers ahead of their first task (they load their modules meanwhile); nothing when started or closed. */
  start(): void {
    if (this.started || this.closed) return;
    for (let i = 0; i < this.size; i++) {
      const entry: PoolWorker<Task, Answer> = { worker: new Worker(this.url), busy: undefined };
      entry.worker.on('message', (reply: PoolReply<Answer>) => this.settle(entry, reply));
      entry.worker.once('error', (error: Error) => this.fail(error));
      entry.worker.once('exit', (code) => {
        if (!this.closed) this.fail(new Error(`a worker thread stopped (exit code ${code})`));
      });
      // After the listeners: adding a 'message' listener refs the worker's port again.
      entry.worker.unref();
      this.workers.push(entry);
    }
  }

  /** Stops the workers; tasks still queued fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.failAll(new Error('the worker pool was closed before the task ran'));
    for (const { worker } of this.workers) void worker.terminate();
  }

  private dispatch(): void {
    for (const entry of this.workers) {
      if (entry.busy || this.queue.length === 0) continue;
      const next = this.queue.shift()!;
      entry.busy = next;
      entry.worker.ref(); // a task in flight keeps the process alive until it is answered
      let task: Task;
      try {
        task = typeof next.task === 'function' ? (next.task as () => Task)() : next.task;
      } catch (error) {
        entry.busy = undefined;
        entry.worker.unref();
        next.reject(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      entry.worker.postMessage({ id: next.id, task } satisfies PoolRequest<Task>);
    }
  }

  private settle(entry: PoolWorker<Task, Answer>, reply: PoolReply<Answer>): void {
    const pending = entry.busy;
    if (!pending || pending.id !== reply.id) return;
    entry.busy = undefined;
    entry.worker.unref();
    if ('error' in reply) pending.reject(new Error(reply.error));
    else pending.resolve(reply.answer);
    this.dispatch();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.failAll(this.failure);
  }

  private failAll(error: Error): void {
    for (const entry of this.workers) {
      entry.busy?.reject(error);
      entry.busy = undefined;
    }
    for (const pending of this.queue.splice(0)) pending.reject(error);
  }
}
