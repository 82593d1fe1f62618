import Tinypool from 'tinypool';
import type { Summarizer } from '../llm/types.js';
import { scanStreams, toColumns } from '../vault/scan.js';
import type { BuildAnswer, BuildTask, BuildWorkerData, RollupAnswer } from './build-pool.js';

/**
 * The one entry file of the build's worker threads (build-pool.ts): tinypool
 * calls the default export once per task. A task parses files, runs one
 * rollup with the embedded summarizer, or walks the vault.
 *
 * A build thread loads remark, the summarizer and the rollup code when it
 * starts, before it takes its first task, so that load overlaps the main
 * thread's reading of the files. The scan thread loads only the walk: on two
 * cores, loading more there slowed a no-change rebuild of a large vault
 * (the main thread's GC and compilation need the second core too).
 */

const loadStages = async () => {
  const [extractive, parseFile, rollup] = await Promise.all([
    import('../llm/extractive/index.js'),
    import('../vault/parse-file.js'),
    import('./rollup.js'),
  ]);
  return { extractive, parseFile, rollup };
};
let stages: ReturnType<typeof loadStages> | undefined;
if (!(Tinypool.workerData as BuildWorkerData | undefined)?.scanOnly) await (stages = loadStages());

const summarizers = new Map<string, Summarizer>();

export default async function run(task: BuildTask): Promise<BuildAnswer> {
  if (task.kind === 'scan') return toColumns(scanStreams(task.vaultDir, task.streams));
  const { extractive, parseFile, rollup } = await (stages ??= loadStages());
  if (task.kind === 'parse')
    return task.files.map((file) => parseFile.parseVaultFile(file.bytes, file.vaultPath, file.role, task.timezone, file.markdown));
  let summarizer = summarizers.get(task.settings.tokenizer);
  if (!summarizer)
    summarizers.set(task.settings.tokenizer, (summarizer = extractive.createExtractiveSummarizer({ tokenizer: task.settings.tokenizer })));
  try {
    const result = await rollup.rollupSources(task.job, task.sources, { ...task.settings, summarizer });
    // Parsed here, so the tier above reads the summary without parsing it on the main thread.
    return { ok: true, result, parsed: parseFile.parseSummaryBody(result.body) } satisfies RollupAnswer;
  } catch (error) {
    if (!(error instanceof rollup.RollupError)) throw error;
    return { ok: false, kind: error.kind, message: error.message, usage: error.usage, attempts: error.attempts } satisfies RollupAnswer;
  }
}
