import { backoffDelay, type Fault } from './faults.js';

/**
 * The one retry loop of the calls memvault makes to an LLM server: the
 * summarizer, the facts judge and the embeddings. A try ends in a value or a
 * classified fault (faults.ts); a retryable fault is tried again up to
 * `faultRetries` times, after the server's `retry-after` (capped at
 * `maxWaitMs`) or exponential backoff with jitter.
 *
 * Why not the openai SDK's own retries (`maxRetries`, off in every request) or
 * p-retry: a try here can fail without an HTTP error (an empty answer, no JSON
 * verdict, too few vectors) and must be tried again; each try gets a longer
 * timeout; every try is counted (the build report's calls and retries); and
 * once one call finds the endpoint dead, the next tries of every call stop
 * (`before`). The SDK retries HTTP errors only, with its own fixed backoff;
 * p-retry computes its own waits, so `retry-after` would be a second wait.
 */

export interface RetryPolicy {
  /** Tries after the first one. */
  faultRetries: number;
  /** First backoff; doubled per retry, capped at 30 s. */
  backoffMs: number;
  /** Longest `retry-after` honoured. */
  maxWaitMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Jitter source (tests pass a fixed one). */
  random?: () => number;
}

/** What one try gave: a value, or the fault it ended in. */
export type TryOutcome<T> = { value: T } | { fault: Fault };

export interface RetrySteps<T> {
  /** Before each try: throws to stop (another call found the endpoint dead meanwhile). */
  before?: () => void;
  /** One try; `retry` is 0 for the first. Errors it throws are not retried: classify them into a fault. */
  attempt: (retry: number) => Promise<TryOutcome<T>>;
  /** The error thrown when a fault is final (not retryable, or the last try). */
  fail: (fault: Fault, attempts: number) => Error;
  /** Before each wait for another try. */
  onRetry?: (fault: Fault, retry: number) => void;
}

/**
 * Runs `steps.attempt` until it gives a value or a final fault.
 *
 * @example
 *   await withRetries(policy, { attempt: async () => ({ value: await ask() }), fail: (fault) => new Error(fault.message) })
 */
export async function withRetries<T>(policy: RetryPolicy, steps: RetrySteps<T>): Promise<T> {
  for (let retry = 0; ; retry++) {
    steps.before?.();
    const outcome = await steps.attempt(retry);
    if ('value' in outcome) return outcome.value;
    const { fault } = outcome;
    if (!fault.retryable || retry >= policy.faultRetries) throw steps.fail(fault, retry + 1);
    steps.onRetry?.(fault, retry);
    await policy.sleep(retryWait(fault, retry, policy));
  }
}

/** The wait before retry `retry`: the server's `retry-after` (capped), else backoff with jitter. */
export function retryWait(fault: Fault, retry: number, policy: Pick<RetryPolicy, 'backoffMs' | 'maxWaitMs' | 'random'>): number {
  return fault.retryAfterMs !== undefined
    ? Math.min(fault.retryAfterMs, policy.maxWaitMs)
    : backoffDelay(retry, policy.backoffMs, 30_000, policy.random);
}

/** A final fault's message says how many tries a retryable fault had: `… (3 attempts)`. */
export function withAttemptCount(fault: Fault, attempts: number): Fault {
  return { ...fault, message: `${fault.message}${fault.retryable ? ` (${attempts} attempt${attempts > 1 ? 's' : ''})` : ''}` };
}
