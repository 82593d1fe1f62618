import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../src/util/worker-pool.js';

/** A worker speaking the pool's protocol: doubles `value` after `delay` ms, or fails in the way the task asks. */
const WORKER = `
import { parentPort, threadId } from 'node:worker_threads';
parentPort.on('message', ({ id, task }) => {
  if (task.op === 'fail') return parentPort.postMessage({ id, error: 'cannot do ' + task.value });
  if (task.op === 'die') throw new Error('the worker died on ' + task.value);
  setTimeout(() => parentPort.postMessage({ id, answer: { value: task.value * 2, thread: threadId } }), task.delay ?? 0);
});
`;

interface Task {
  op?: 'fail' | 'die';
  value: number;
  delay?: number;
}
interface Answer {
  value: number;
  thread: number;
}

let dir: string;
let workerUrl: URL;
const pools: WorkerPool<Task, Answer>[] = [];
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-pool-'));
  writeFileSync(path.join(dir, 'worker.mjs'), WORKER);
  workerUrl = pathToFileURL(path.join(dir, 'worker.mjs'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

function pool(size: number): WorkerPool<Task, Answer> {
  const created = new WorkerPool<Task, Answer>(workerUrl, size);
  pools.push(created);
  return created;
}

describe('WorkerPool', () => {
  it('starts on the first task and answers each task with its own answer, on every worker', async () => {
    const workers = pool(2);
    expect(workers.started).toBe(false);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => workers.run({ value: i, delay: (i * 7) % 5 })));
    expect(workers.started).toBe(true);
    expect(answers.map((answer) => answer.value)).toEqual(Array.from({ length: 12 }, (_, i) => i * 2));
    expect(new Set(answers.map((answer) => answer.thread)).size).toBe(2);
  });

  it('can be started ahead of its first task, once', async () => {
    const workers = pool(2);
    workers.start();
    workers.start();
    expect(workers.started).toBe(true);
    const answers = await Promise.all([workers.run({ value: 1, delay: 20 }), workers.run({ value: 2, delay: 20 }), workers.run({ value: 3 })]);
    expect(answers.map((answer) => answer.value)).toEqual([2, 4, 6]);
    expect(new Set(answers.map((answer) => answer.thread)).size).toBe(2);
  });

  it('prepares a task given as a function only when a worker is free for it', async () => {
    const workers = pool(1);
    const prepared: number[] = [];
    const task = (value: number) => (): Task => {
      prepared.push(value);
      return { value, delay: 20 };
    };
    const running = [workers.run(task(1)), workers.run(task(2)), workers.run(task(3))];
    expect(prepared).toEqual([1]);
    expect((await running[0])!.value).toBe(2);
    expect(prepared).toEqual([1, 2]);
    await Promise.all(running);
    expect(prepared).toEqual([1, 2, 3]);
  });

  it('fails only the task whose worker answered with an error', async () => {
    const workers = pool(2);
    const results = await Promise.allSettled([workers.run({ value: 1 }), workers.run({ op: 'fail', value: 2 }), workers.run({ value: 3 })]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('cannot do 2'));
    expect(await workers.run({ value: 4 })).toMatchObject({ value: 8 });
  });

  it('fails the running and queued tasks, and every later one, when a worker dies', async () => {
    const workers = pool(1);
    const results = await Promise.allSettled([workers.run({ op: 'die', value: 7 }), workers.run({ value: 1 })]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect(String((result as PromiseRejectedResult).reason)).toContain('the worker died on 7');
    }
    await expect(workers.run({ value: 2 })).rejects.toThrow('the worker died on 7');
  });

  it('fails queued tasks and later ones once closed', async () => {
    const workers = pool(1);
    const first = workers.run({ value: 1, delay: 50 });
    const queued = workers.run({ value: 2 });
    workers.close();
    await expect(first).rejects.toThrow('closed');
    await expect(queued).rejects.toThrow('closed');
    await expect(workers.run({ value: 3 })).rejects.toThrow('closed');
  });

  it('does not keep the process alive once its tasks are answered (the compiled pool, in a child process)', () => {
    const compiled = pathToFileURL(path.resolve('dist/src/util/worker-pool.js')).href;
    const script = `
      const { WorkerPool } = await import(${JSON.stringify(compiled)});
      const pool = new WorkerPool(new URL(${JSON.stringify(workerUrl.href)}), 2);
      console.log(JSON.stringify(await pool.run({ value: 21 })));
    `;
    writeFileSync(path.join(dir, 'child.mjs'), script);
    const child = spawnSync(process.execPath, [path.join(dir, 'child.mjs')], { encoding: 'utf8', timeout: 20_000 });
    expect(child.error).toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ value: 42 });
  });
});
