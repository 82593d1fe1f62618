import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContentStore } from '../../../src/load/content-store.js';
import { createExtractiveSummarizer } from '../../../src/llm/extractive/index.js';
import type { Summarizer } from '../../../src/llm/types.js';
import type { RollupJob } from '../../../src/pipeline/calendar/plan.js';
import { type RollupContext, runRollup } from '../../../src/pipeline/calendar/rollup.js';
import { MAX_SUMMARIZED_SOURCES } from '../../../src/pipeline/calendar/rollup-sources.js';
import { type ParsedContent, purgeParseCache } from '../../../src/store/cache.js';
import { closeStateStore } from '../../../src/store/database.js';
import { KeptRollups } from '../../../src/store/derived-memo-rollups.js';
import type { Memory } from '../../../src/vault/model.js';
import { memoryAt } from '../../helpers/memory-object.js';

/**
 * A very busy day is summarized from a sample of its memories; a memory added at its end usually leaves the sample as it
 * was, and the summary the embedded summarizer made of that sample is then used again (rollup-kept.ts): the same file
 * it would make again, without making it (issue 29).
 */

const DAY = '2026-03-09';
const COMPONENTS = ['queue worker', 'export CLI', 'billing API', 'auth gateway', 'search indexer'];

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) {
    closeStateStore(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

function memories(count: number): Memory[] {
  return Array.from({ length: count }, (_, n) => ({
    ...memoryAt('main', `${DAY}-step-${String(n).padStart(5, '0')}`),
    day: DAY,
    date: `${DAY}T10:00:00Z`,
    minute: 600,
    title: `Step ${n}`,
  }));
}

function body(memory: Memory): ParsedContent {
  const n = Number(memory.id.slice(-5));
  const text = `Moved batch ${n} of the ${COMPONENTS[n % COMPONENTS.length]} to \`worker-${n % 7}\` and closed #${100 + (n % 90)}.`;
  return { body: text, sentences: [{ text, section: '', block: 0, role: 'done', mustKeep: [] }], headings: [] };
}

function job(all: readonly Memory[], budget = 300): { job: RollupJob; budget: number } {
  const sources = all.map((memory) => ({ id: memory.id, sha256: memory.sha256 }));
  return {
    job: {
      tier: 'daily',
      stream: 'main',
      period: DAY,
      start: DAY,
      end: DAY,
      path: `main/daily/${DAY}.md`,
      sources,
      memories: all.length,
      inputHash: `hash-of-${all.length}`,
      reason: 'stale',
    },
    budget,
  };
}

/** The embedded summarizer, counting its calls. */
function counted(): Summarizer & { calls: number } {
  const inner = createExtractiveSummarizer();
  const summarizer = {
    ...inner,
    calls: 0,
    summarize: (request: Parameters<Summarizer['summarize']>[0]) => {
      summarizer.calls++;
      return inner.summarize(request);
    },
  };
  return summarizer;
}

function context(all: readonly Memory[], summarizer: Summarizer, budget: number, kept?: KeptRollups): RollupContext {
  return {
    summarizer,
    tokenizer: 'o200k_base',
    budgets: { daily: { target_tokens: budget, max_bytes: 4000 } },
    retries: 2,
    content: { memory: body } as unknown as ContentStore,
    memoriesById: new Map(all.map((memory) => [memory.id, memory])),
    summariesById: new Map(),
    ...(kept ? { kept } : {}),
  };
}

describe('a very busy day summarized from a kept sample', () => {
  it('uses the summary made of the same sample again, and writes the file a new one would be', async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'memvault-kept-'));
    dirs.push(stateDir);
    const kept = new KeptRollups(stateDir);
    const day = memories(MAX_SUMMARIZED_SOURCES + 1); // a stride of 2: 1,001 of them read
    const summarizer = counted();

    const first = await runRollup(job(day).job, context(day, summarizer, 300, kept));
    expect(summarizer.calls).toBeGreaterThan(0);

    // One more memory at the end (index 2,001: off the stride): the same sample, the summary kept.
    const more = memories(MAX_SUMMARIZED_SOURCES + 2);
    const before = summarizer.calls;
    const again = await runRollup(job(more).job, context(more, summarizer, 300, kept));
    expect(summarizer.calls).toBe(before);
    expect(again.body).toBe(first.body);
    expect(again.meta.memories).toBe(MAX_SUMMARIZED_SOURCES + 2);
    // What a build without the kept summaries writes for the same memories, byte for byte.
    const fresh = await runRollup(job(more).job, context(more, counted(), 300));
    expect(again.text).toBe(fresh.text);
    expect(again.meta).toEqual(fresh.meta);

    // `memvault redact` empties the derived stores: a kept summary quotes memories, so it goes with them.
    purgeParseCache(stateDir);
    const afterPurge = summarizer.calls;
    await runRollup(job(more).job, context(more, summarizer, 300, kept));
    expect(summarizer.calls).toBeGreaterThan(afterPurge);

    // Another budget is another request: made again.
    const beforeBudget = summarizer.calls;
    await runRollup(job(more).job, context(more, summarizer, 250, kept));
    expect(summarizer.calls).toBeGreaterThan(beforeBudget);
  });

  it('keeps nothing of a model, whose next answer may differ', async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'memvault-kept-'));
    dirs.push(stateDir);
    const kept = new KeptRollups(stateDir);
    const day = memories(MAX_SUMMARIZED_SOURCES + 1);
    let calls = 0;
    const model: Summarizer = {
      provider: 'openai',
      model: 'test-1',
      promptId: (tier) => `${tier}@test`,
      summarize: async () => {
        calls++;
        return { body: '## Done\n\n- Moved the batches.', usage: { calls: 1, inputTokens: 10, outputTokens: 5 } };
      },
    };
    await runRollup(job(day).job, context(day, model, 300, kept));
    const first = calls;
    expect(first).toBeGreaterThan(0);
    await runRollup(job(day).job, context(day, model, 300, kept));
    expect(calls).toBe(2 * first);
  });
});
