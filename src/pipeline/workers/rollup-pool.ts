import type { SummarySource } from '../../llm/types.js';
import type { ParsedContent } from '../../store/cache.js';
import type { BuildPool, RollupAnswer, RollupSettingsForWorkers } from './build-pool.js';
import type { RollupJob } from '../calendar/plan.js';
import { RollupError, type RollupResult } from '../calendar/rollup.js';

/**
 * Rollups of one tier on the build's worker threads, for the embedded
 * summarizer: a cold build of three years makes ~1,000 dailies at ~10 ms of
 * CPU each (sentence scoring, token counting, the retention check, parsing
 * the result), and they are independent of each other. An LLM provider waits
 * on the network instead and keeps its own concurrency (`llm.concurrency`)
 * in-process.
 *
 * The main thread reads each job's sources (the parsed memories it holds)
 * and sends them; a worker answers with the result and the parsed body of
 * the summary, so the tier above needs no parsing either. Results are the
 * same as in-process: the summarizer is deterministic per job.
 */

/** Below this many jobs, starting the workers (~300 ms each to load the tokenizer and remark) costs more than it saves. */
export const MIN_JOBS_FOR_WORKERS = 40;
/**
 * Once the workers run (an earlier stage started them), any tier goes to them:
 * they have the summarizer, the tokenizer and remark loaded and warm, and the
 * main thread then never loads remark at all in a cold build.
 */
export const MIN_JOBS_FOR_STARTED_WORKERS = 1;
/** Jobs in flight per build thread: one running, one queued in the pool. */
const LANES_PER_THREAD = 2;

export interface PooledRollup {
  result: RollupResult;
  /** The summary body as the tiers above read it. */
  parsed: ParsedContent;
}

/** Whether `jobs` are worth sending to the worker threads: the embedded summarizer, and enough jobs for the workers' state. */
export function usesRollupWorkers(provider: string, jobs: number, pool: BuildPool | undefined): pool is BuildPool {
  if (provider !== 'extractive' || !pool) return false;
  return jobs >= (pool.started ? MIN_JOBS_FOR_STARTED_WORKERS : MIN_JOBS_FOR_WORKERS);
}

/**
 * The calendar's rollups on the build's pool, as calendar/apply.ts is handed
 * them (`BuildContext.rollups`, set by build.ts): the calendar stage
 * does not import the threads, which import its rollup.
 */
export interface RollupWorkers {
  /** Whether a tier of `jobs` rollups by `provider` goes to the threads (`usesRollupWorkers`, asked when the tier runs). */
  takes(provider: string, jobs: number): boolean;
  /** `rollupInWorkers` on the build's pool. */
  run(
    jobs: readonly RollupJob[],
    sourcesOf: (job: RollupJob) => SummarySource[],
    settings: RollupSettingsForWorkers,
    onOutcome: (index: number, outcome: PooledRollup | RollupError) => void,
  ): Promise<(PooledRollup | RollupError)[]>;
}

/** The rollups on `pool`, or none when the build has no threads. */
export function rollupWorkersOn(pool: BuildPool | undefined): RollupWorkers | undefined {
  if (!pool) return undefined;
  return {
    takes: (provider, jobs) => usesRollupWorkers(provider, jobs, pool),
    run: (jobs, sourcesOf, settings, onOutcome) => rollupInWorkers(jobs, sourcesOf, settings, pool, onOutcome),
  };
}

/**
 * Runs the jobs on the pool and returns their outcomes in job order;
 * `onOutcome` is called as each one arrives (progress, writing). A job's
 * sources are read when a lane is free for it (two lanes per thread), so
 * the threads start on the first jobs while the main thread reads the
 * sources of the rest, and no more than two jobs' sources per thread are
 * held in messages at a time.
 */
export async function rollupInWorkers(
  jobs: readonly RollupJob[],
  sourcesOf: (job: RollupJob) => SummarySource[],
  settings: RollupSettingsForWorkers,
  pool: BuildPool,
  onOutcome: (index: number, outcome: PooledRollup | RollupError) => void,
): Promise<(PooledRollup | RollupError)[]> {
  const outcomes: (PooledRollup | RollupError)[] = new Array(jobs.length);
  let next = 0;
  const send = (): { index: number; answer: Promise<RollupAnswer> } | undefined => {
    if (next >= jobs.length) return undefined;
    const index = next++;
    return { index, answer: pool.rollup(jobs[index]!, sourcesOf(jobs[index]!), settings) };
  };
  const lane = async (): Promise<void> => {
    for (let sent = send(); sent; ) {
      const answer = await sent.answer;
      const { index } = sent;
      // The thread gets its next job before this summary is written: it never waits for the main thread's writes.
      sent = send();
      const job = jobs[index]!;
      // The job object itself, not the worker's copy: callers compare and update it.
      const outcome = answer.ok
        ? { result: { ...answer.result, job }, parsed: answer.parsed }
        : new RollupError(job, answer.kind, answer.message, answer.usage, answer.attempts);
      outcomes[index] = outcome;
      onOutcome(index, outcome);
    }
  };
  // Two lanes per thread: the pool hands a thread the other lane's queued job as soon as its answer is posted, so the
  // thread never waits for the main thread to take the answer and read the next job's sources (~6 % of a build
  // thread's rollup time, under load, with one lane per thread).
  await Promise.all(Array.from({ length: Math.min(LANES_PER_THREAD * pool.size, jobs.length) }, lane));
  return outcomes;
}
