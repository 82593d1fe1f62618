import { describe, expect, it } from 'vitest';
import type { Fault } from '../../src/llm/faults.js';
import { type RetryPolicy, withAttemptCount, withRetries } from '../../src/llm/retry.js';

const fault = (over: Partial<Fault> = {}): Fault => ({ kind: 'server', message: 'HTTP 503', retryable: true, fatal: false, ...over });

function policy(waits: number[], faultRetries = 2): RetryPolicy {
  return { faultRetries, backoffMs: 1000, maxWaitMs: 5000, random: () => 0.5, sleep: async (ms) => void waits.push(ms) };
}

describe('withRetries: the one retry loop of LLM, judge and embeddings calls', () => {
  it('tries again after backoff or the capped retry-after, and returns the first value', async () => {
    const waits: number[] = [];
    const outcomes = [{ fault: fault() }, { fault: fault({ retryAfterMs: 60_000 }) }, { value: 'ok' }];
    const tries: number[] = [];
    const value = await withRetries(policy(waits), {
      attempt: async (retry) => {
        tries.push(retry);
        return outcomes[retry]!;
      },
      fail: () => new Error('unreachable'),
    });
    expect(value).toBe('ok');
    expect(tries).toEqual([0, 1, 2]);
    expect(waits).toEqual([1000, 5000]);
  });

  it('fails at once on a fault that is not retryable, and after the last retry with the attempt count', async () => {
    const waits: number[] = [];
    const fail = (f: Fault, attempts: number): Error => new Error(withAttemptCount(f, attempts).message);
    await expect(
      withRetries(policy(waits), { attempt: async () => ({ fault: fault({ retryable: false, message: 'HTTP 401' }) }), fail }),
    ).rejects.toThrow(/^HTTP 401$/);
    await expect(withRetries(policy(waits, 1), { attempt: async () => ({ fault: fault() }), fail })).rejects.toThrow(
      'HTTP 503 (2 attempts)',
    );
    expect(waits).toEqual([1000]);
  });

  it('stops before a try when `before` throws (the endpoint was found dead by another call)', async () => {
    let dead = false;
    let tries = 0;
    const run = withRetries(policy([]), {
      before: () => {
        if (dead) throw new Error('not attempted');
      },
      attempt: async () => {
        tries++;
        dead = true;
        return { fault: fault() };
      },
      fail: () => new Error('failed'),
    });
    await expect(run).rejects.toThrow('not attempted');
    expect(tries).toBe(1);
  });
});
