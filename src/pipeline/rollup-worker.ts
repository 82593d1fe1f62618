import { parentPort } from 'node:worker_threads';
import { createExtractiveSummarizer } from '../llm/extractive.js';
import { parseSummaryBody } from '../vault/parse-file.js';
import { RollupError, rollupSources } from './rollup.js';
import type { RollupBatch, RollupMessage } from './rollup-pool.js';

/** A rollup worker (rollup-pool.ts): runs a batch of jobs with the embedded summarizer, answers once per job. */
parentPort?.once('message', (batch: RollupBatch) => {
  void (async () => {
    const summarizer = createExtractiveSummarizer({ tokenizer: batch.settings.tokenizer });
    const settings = { ...batch.settings, summarizer };
    for (let i = 0; i < batch.items.length; i++) {
      const { index, job, sources } = batch.items[i]!;
      // Let go of a job's sources once it is done: what the summarizer derived from them is cached against them.
      batch.items[i] = undefined as never;
      let message: RollupMessage;
      try {
        const result = await rollupSources(job, sources, settings);
        message = { index, ok: true, result, parsed: parseSummaryBody(result.body) };
      } catch (error) {
        if (!(error instanceof RollupError)) {
          parentPort?.postMessage({ fatal: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies RollupMessage);
          return;
        }
        message = { index, ok: false, kind: error.kind, message: error.message, usage: error.usage, attempts: error.attempts };
      }
      parentPort?.postMessage(message);
    }
  })();
});
