import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BuildPool, type BuildAnswer, type BuildTask, parseChunks } from '../../../src/pipeline/workers/build-pool.js';
import { parseVaultFile, type ParsedFile } from '../../../src/load/parse-file.js';
import { classifyPath } from '../../../src/vault/paths.js';
import type { FileToParse } from '../../../src/load/parse-pool.js';

/**
 * The build's pool (pipeline/build-pool.ts, on tinypool). The failure cases run a small worker module that
 * misbehaves on request; the parse case runs the compiled build worker, the one the CLI runs.
 */

/** Doubles `value` after `delay` ms, or fails in the way the task asks: throws, dies of an uncaught error, exits. */
const WORKER = `
import { threadId } from 'node:worker_threads';
export default async function (task) {
  if (task.op === 'throw') throw new Error('cannot do ' + task.value);
  if (task.op === 'die') { setTimeout(() => { throw new Error('the worker died on ' + task.value); }); return new Promise(() => {}); }
  if (task.op === 'exit') process.exit(3);
  await new Promise((resolve) => setTimeout(resolve, task.delay ?? 0));
  return { value: task.value * 2, thread: threadId };
}
`;

interface TestTask {
  op?: 'throw' | 'die' | 'exit';
  value: number;
  delay?: number;
}
interface Answer {
  value: number;
  thread: number;
}

let dir: string;
let workerUrl: URL;
const pools: BuildPool[] = [];
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-pool-'));
  writeFileSync(path.join(dir, 'worker.mjs'), WORKER);
  writeFileSync(path.join(dir, 'broken.mjs'), `throw new Error('this worker module does not load');\n`);
  workerUrl = pathToFileURL(path.join(dir, 'worker.mjs'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

function pool(size: number, worker = workerUrl): BuildPool {
  const created = BuildPool.create({ worker, size })!;
  pools.push(created);
  return created;
}

const run = (workers: BuildPool, task: TestTask): Promise<Answer> =>
  workers.run(task as unknown as BuildTask) as unknown as Promise<Answer>;

describe('BuildPool', () => {
  it('starts on the first task and answers each task with its own answer, on every thread', async () => {
    const workers = pool(2);
    expect(workers.started).toBe(false);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => run(workers, { value: i, delay: 5 + ((i * 7) % 5) })));
    expect(workers.started).toBe(true);
    expect(answers.map((answer) => answer.value)).toEqual(Array.from({ length: 12 }, (_, i) => i * 2));
    expect(new Set(answers.map((answer) => answer.thread)).size).toBe(2);
  });

  it('can be started ahead of its first task, once', async () => {
    const workers = pool(2);
    workers.start();
    workers.start();
    expect(workers.started).toBe(true);
    const answers = await Promise.all([
      run(workers, { value: 1, delay: 30 }),
      run(workers, { value: 2, delay: 30 }),
      run(workers, { value: 3 }),
    ]);
    expect(answers.map((answer) => answer.value)).toEqual([2, 4, 6]);
    expect(new Set(answers.map((answer) => answer.thread)).size).toBe(2);
  });

  it('fails only the task that threw', async () => {
    const workers = pool(2);
    const results = await Promise.allSettled([
      run(workers, { value: 1 }),
      run(workers, { op: 'throw', value: 2 }),
      run(workers, { value: 3 }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('cannot do 2');
    expect(await run(workers, { value: 4 })).toMatchObject({ value: 8 });
  });

  const deaths = [
    { op: 'die', how: 'dies of an uncaught error' },
    { op: 'exit', how: 'calls process.exit' },
  ] as const;
  it.each(deaths)('fails only the task whose thread $how; queued and later tasks run on a new thread', async ({ op }) => {
    const workers = pool(2);
    const results = await Promise.allSettled([
      run(workers, { op, value: 7 }),
      ...Array.from({ length: 4 }, (_, i) => run(workers, { value: i, delay: 10 })),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(op === 'die' ? /the worker died on 7/ : /exited \(code 3\)/);
    const later = await Promise.all([run(workers, { value: 10, delay: 20 }), run(workers, { value: 11, delay: 20 })]);
    expect(later.map((answer) => answer.value)).toEqual([20, 22]);
  });

  it('fails the tasks of a worker module that does not load, with its error, instead of waiting forever', async () => {
    const workers = pool(2, pathToFileURL(path.join(dir, 'broken.mjs')));
    const results = await Promise.allSettled([run(workers, { value: 1 }), run(workers, { value: 2 })]);
    for (const result of results) expect(String((result as PromiseRejectedResult).reason)).toContain('does not load');
    await expect(run(workers, { value: 3 })).rejects.toThrow('does not load');
  });

  it('fails queued tasks and later ones once closed', async () => {
    const workers = pool(2);
    const running = [run(workers, { value: 1, delay: 200 }), run(workers, { value: 2, delay: 200 })];
    const queued = run(workers, { value: 3 });
    workers.close();
    await expect(queued).rejects.toThrow();
    await Promise.allSettled(running);
    await expect(run(workers, { value: 4 })).rejects.toThrow('closed');
  });

  it('closes without an uncaught error when a thread dies as it is being stopped', async () => {
    const workers = pool(2);
    await run(workers, { value: 1 }); // the threads are up
    const dying = run(workers, { op: 'die', value: 5 }).catch((error: unknown) => error);
    // Hold the main thread while the worker throws: its error waits in the queue and is delivered after close() began.
    const until = performance.now() + 150;
    while (performance.now() < until);
    workers.close();
    await dying;
    await new Promise((resolve) => setTimeout(resolve, 100));
  });

  it('never keeps the process alive when idle (the compiled pool, in a child process, never closed)', () => {
    const compiled = pathToFileURL(path.resolve('dist/src/pipeline/workers/build-pool.js')).href;
    const script = `
      const { BuildPool } = await import(${JSON.stringify(compiled)});
      const started = BuildPool.create({ worker: new URL(${JSON.stringify(workerUrl.href)}), size: 2 });
      started.start();
      const used = BuildPool.create({ worker: new URL(${JSON.stringify(workerUrl.href)}), size: 2 });
      console.log(JSON.stringify(await used.run({ value: 21 })));
    `;
    writeFileSync(path.join(dir, 'child.mjs'), script);
    const began = performance.now();
    const child = spawnSync(process.execPath, [path.join(dir, 'child.mjs')], { encoding: 'utf8', timeout: 20_000 });
    expect(child.error).toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ value: 42 });
    expect(performance.now() - began).toBeLessThan(15_000);
  });

  it('parses on the compiled build worker exactly as in-process, in order, with progress', async () => {
    const { BuildPool: Compiled } = (await import(path.resolve('dist/src/pipeline/workers/build-pool.js'))) as {
      BuildPool: typeof BuildPool;
    };
    const workers = Compiled.create({ size: 2 })!;
    pools.push(workers);
    const files: FileToParse[] = Array.from({ length: 150 }, (_, i) => {
      const vaultPath =
        i % 10 === 9 ? `main/daily/2026-01-${String((i % 28) + 1).padStart(2, '0')}.md` : `main/memories/2026/01/note-${i}.md`;
      const text =
        i % 7 === 3
          ? `---\ndate: not a date\n---\nBroken ${i}\n`
          : `---\ndate: 2026-01-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z\ntitle: Note ${i}\n---\n` +
            `# Heading ${i}\n\nZoë's café — item ${i}, p99 ${i} ms. \`code ${i}\`\n`;
      return { vaultPath, role: classifyPath(vaultPath), bytes: new TextEncoder().encode(text) };
    });
    const progress: number[] = [];
    const parsed: ParsedFile[] = [];
    const offsets: number[] = [];
    await workers.parse(
      files,
      'Europe/Berlin',
      (offset, results) => {
        offsets.push(offset);
        parsed.push(...results);
      },
      (done) => progress.push(done),
    );
    const chunks = parseChunks(files, 2);
    expect(offsets).toEqual(chunks.map((chunk) => chunk.start)); // handed on in file order, a chunk at a time
    expect(parsed).toEqual(files.map((file) => parseVaultFile(file.bytes, file.vaultPath, file.role, 'Europe/Berlin')));
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(files.length);
    expect(progress.length).toBe(chunks.length + 1);
    const answer: BuildAnswer = await workers.run({ kind: 'parse', timezone: 'UTC', files: [] });
    expect(answer).toEqual([]);
  });
});

describe('parseChunks', () => {
  const files = (count: number): FileToParse[] =>
    Array.from({ length: count }, (_, i) => ({ vaultPath: `main/memories/m${i}.md` }) as unknown as FileToParse);

  it('covers every file once, in order, and cuts the last chunks small so the threads finish together', () => {
    for (const [count, threads] of [
      [0, 2],
      [1, 2],
      [100, 2],
      [256, 2],
      [257, 2],
      [4000, 2],
      [4000, 8],
    ] as const) {
      const all = files(count);
      const chunks = parseChunks(all, threads);
      expect(chunks.flatMap((chunk) => chunk.files)).toEqual(all);
      for (const chunk of chunks) expect(all.indexOf(chunk.files[0]!)).toBe(chunk.start);
      expect(chunks.every((chunk) => chunk.files.length > 0 && chunk.files.length <= 64)).toBe(true);
      // The work left after any thread's last full-size chunk is small pieces.
      const small = chunks.slice(-2 * threads * 4);
      if (count > 0) expect(Math.max(...small.map((chunk) => chunk.files.length))).toBe(Math.min(16, count));
    }
  });
});
