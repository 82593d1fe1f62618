import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SummarySource, SummaryUsage } from '../llm/types.js';
import type { ParsedContent } from '../vault/cache.js';
import type { RollupJob } from './plan.js';
import { RollupError, type RollupResult, type RollupSettings } from './rollup.js';

/**
 * Rollups of one tier on worker threads, for the embedded summarizer: a cold
 * build of three years makes ~1,000 dailies at ~10 ms of CPU each (sentence
 * scoring, token counting, the retention check, parsing the result), and
 * they are independent of each other. An LLM provider waits on the network
 * instead and keeps its own concurrency (`llm.concurrency`) in-process.
 *
 * The main thread reads each job's sources (the parsed memories it holds)
 * and sends them; a worker answers with the result and the parsed body of
 * the summary, so the tier above needs no parsing either. Results are the
 * same as in-process: the summarizer is deterministic per job.
 */

/** Below this many jobs, starting workers (~300 ms each to load the tokenizer and remark) costs more than it saves. */
export const MIN_JOBS_FOR_WORKERS = 40;
const MAX_WORKERS = 8;

export interface PooledRollup {
  result: RollupResult;
  /** The summary body as the tiers above read it. */
  parsed: ParsedContent;
}

/** What a worker is sent. */
export interface RollupBatch {
  settings: Omit<RollupSettings, 'summarizer'>;
  items: { index: number; job: RollupJob; sources: SummarySource[] }[];
}

/** What a worker answers, once per job (or once, `fatal`, for a bug). */
export type RollupMessage =
  | { index: number; ok: true; result: RollupResult; parsed: ParsedContent }
  | { index: number; ok: false; kind: string; message: string; usage: SummaryUsage; attempts: number }
  | { fatal: string };

function workerUrl(): URL {
  return new URL('./rollup-worker.js', import.meta.url);
}

/** Whether `jobs` are worth sending to worker threads: the embedded summarizer, enough jobs, more than one core, and a compiled worker (tests run the TypeScript sources in-process). */
export function usesRollupWorkers(provider: string, jobs: number): boolean {
  return provider === 'extractive' && jobs >= MIN_JOBS_FOR_WORKERS && availableParallelism() >= 2 && existsSync(fileURLToPath(workerUrl()));
}

/**
 * Runs the jobs on `availableParallelism()` workers (jobs dealt round-robin,
 * so early and late periods spread evenly) and returns their outcomes in job
 * order; `onOutcome` is called as each one arrives (progress).
 */
export async function rollupInWorkers(
  jobs: readonly { job: RollupJob; sources: SummarySource[] }[],
  settings: Omit<RollupSettings, 'summarizer'>,
  onOutcome: (outcome: PooledRollup | RollupError) => void,
): Promise<(PooledRollup | RollupError)[]> {
  const count = Math.min(availableParallelism(), MAX_WORKERS, jobs.length);
  const batches: RollupBatch[] = Array.from({ length: count }, () => ({ settings, items: [] }));
  jobs.forEach((item, index) => batches[index % count]!.items.push({ index, ...item }));
  const outcomes: (PooledRollup | RollupError)[] = new Array(jobs.length);
  await Promise.all(
    batches.map(
      (batch) =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(workerUrl());
          let left = batch.items.length;
          worker.on('message', (message: RollupMessage) => {
            if ('fatal' in message) {
              reject(new Error(`rollup worker failed: ${message.fatal}`));
              void worker.terminate();
              return;
            }
            const job = jobs[message.index]!.job;
            // The job object itself, not the worker's copy: callers compare and update it.
            const outcome = message.ok ? { result: { ...message.result, job }, parsed: message.parsed } : new RollupError(job, message.kind, message.message, message.usage, message.attempts);
            outcomes[message.index] = outcome;
            onOutcome(outcome);
            if (--left === 0) {
              resolve();
              void worker.terminate();
            }
          });
          worker.once('error', reject);
          worker.postMessage(batch);
        }),
    ),
  );
  return outcomes;
}
