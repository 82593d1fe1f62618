import { parentPort } from 'node:worker_threads';
import { createExtractiveSummarizer } from '../llm/extractive.js';
import type { Summarizer } from '../llm/types.js';
import type { PoolReply, PoolRequest } from '../util/worker-pool.js';
import { parseSummaryBody, parseVaultFile } from '../vault/parse-file.js';
import type { BuildAnswer, BuildTask, RollupAnswer } from './build-pool.js';
import { RollupError, rollupSources } from './rollup.js';

/** A build worker (build-pool.ts): parses files, or runs one rollup with the embedded summarizer, per task. */

const summarizers = new Map<string, Summarizer>();

async function run(task: BuildTask): Promise<BuildAnswer> {
  if (task.kind === 'parse') return task.files.map((file) => parseVaultFile(file.bytes, file.vaultPath, file.role, task.timezone));
  let summarizer = summarizers.get(task.settings.tokenizer);
  if (!summarizer) summarizers.set(task.settings.tokenizer, (summarizer = createExtractiveSummarizer({ tokenizer: task.settings.tokenizer })));
  try {
    const result = await rollupSources(task.job, task.sources, { ...task.settings, summarizer });
    // Parsed here, so the tier above reads the summary without parsing it on the main thread.
    return { ok: true, result, parsed: parseSummaryBody(result.body) } satisfies RollupAnswer;
  } catch (error) {
    if (!(error instanceof RollupError)) throw error;
    return { ok: false, kind: error.kind, message: error.message, usage: error.usage, attempts: error.attempts } satisfies RollupAnswer;
  }
}

parentPort?.on('message', ({ id, task }: PoolRequest<BuildTask>) => {
  run(task).then(
    (answer) => parentPort?.postMessage({ id, answer } satisfies PoolReply<BuildAnswer>),
    (error: unknown) => parentPort?.postMessage({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies PoolReply<BuildAnswer>),
  );
});
