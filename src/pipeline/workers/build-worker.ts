import Tinypool from 'tinypool';
import type { Summarizer } from '../../llm/types.js';
import { scanStreams, toColumns } from '../../vault/scan.js';
import type { BuildAnswer, BuildTask, BuildWorkerData, RollupAnswer, TimedAnswer } from './build-pool.js';
import { StageClock, watchGc } from '../build-timings.js';

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
  const [extractive, parseFile, rollup, items] = await Promise.all([
    import('../../llm/extractive/index.js'),
    import('../../load/parse-file.js'),
    import('../calendar/rollup.js'),
    import('../../retention/items.js'),
  ]);
  return { extractive, parseFile, rollup, items };
};
let stages: ReturnType<typeof loadStages> | undefined;
const scanOnly = (Tinypool.workerData as BuildWorkerData | undefined)?.scanOnly === true;
if (!scanOnly) await (stages = loadStages());

const summarizers = new Map<string, Summarizer>();

/** This thread's garbage collection, reported with each answer (`gc.workers` in the build's stats). */
const gc = scanOnly ? undefined : watchGc();

export default async function run(task: BuildTask): Promise<TimedAnswer | BuildAnswer> {
  if (task.kind === 'scan') return toColumns(scanStreams(task.vaultDir, task.streams));
  const clock = new StageClock();
  // One task at a time per thread: the time from start to answer is the task's.
  const started = performance.now();
  const answer = await answerOf(task, clock);
  clock.add(task.kind === 'parse' ? 'parse' : task.kind === 'rollup' ? 'summarize' : 'near-duplicates', performance.now() - started);
  clock.add('gc.workers', gc?.take() ?? 0);
  return { answer, stageMs: clock.ms } satisfies TimedAnswer;
}

async function answerOf(task: Exclude<BuildTask, { kind: 'scan' }>, clock: StageClock): Promise<BuildAnswer> {
  if (task.kind === 'near-duplicates') {
    const { nearDuplicateWarnings } = await import('../../maintain/build-check.js');
    return nearDuplicateWarnings(task.vaultDir, task.stream, task.memories, new Set(task.days));
  }
  const { extractive, parseFile, rollup, items } = await (stages ??= loadStages());
  if (task.kind === 'parse')
    return task.files.map((file) =>
      parseFile.parseVaultFile(file.bytes, file.vaultPath, file.role, task.timezone, file.markdown, clock.time),
    );
  let summarizer = summarizers.get(task.settings.tokenizer);
  if (!summarizer)
    summarizers.set(task.settings.tokenizer, (summarizer = extractive.createExtractiveSummarizer({ tokenizer: task.settings.tokenizer })));
  // What one rollup remembers of sentences serves its own attempts: the next rollup's sources are other sentences.
  items.forgetSentenceMemos();
  try {
    const { job: _sent, ...result } = await rollup.rollupSources(task.job, task.sources, {
      ...task.settings,
      summarizer,
      time: clock.time,
    });
    // Parsed here, so the tier above reads the summary without parsing it on the main thread.
    return {
      ok: true,
      result,
      parsed: clock.time('summarize.parse', () => parseFile.parseSummaryBody(result.body)),
    } satisfies RollupAnswer;
  } catch (error) {
    if (!(error instanceof rollup.RollupError)) throw error;
    return { ok: false, kind: error.kind, message: error.message, usage: error.usage, attempts: error.attempts } satisfies RollupAnswer;
  }
}
