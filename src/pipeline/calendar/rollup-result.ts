import type { SummaryUsage } from '../../llm/types.js';
import { droppedFields, type MustKeepItem } from '../../retention/index.js';
import { sha256 } from '../../util/hash.js';
import { countBytes } from '../../util/tokens.js';
import type { SummaryMeta } from '../../vault/model.js';
import { boundSources, writeSummaryFile } from '../../vault/summary-file.js';
import type { RollupJob } from './plan.js';

/** What a rollup made (rollup.ts), and the summary file it writes: made in one place for a new summary and a kept one (rollup-kept.ts). */

export interface RollupResult {
  job: RollupJob;
  /** The whole file: frontmatter and body. */
  text: string;
  body: string;
  meta: SummaryMeta;
  usage: SummaryUsage;
  /** Summarizer calls made (0 for a merge). */
  attempts: number;
  flagged: boolean;
  /** What was cleaned out of the model's answers (`opening meta-commentary`, `frontmatter`, …). */
  notes?: string[];
}

/** What a summary's frontmatter says of the retention check: how many must-keep items its sources had, which it lost. */
export type RetentionFields = Pick<SummaryMeta, 'must_keep' | 'dropped' | 'dropped_total'>;

/** The retention check's outcome as the frontmatter records it. */
export function retentionFields(items: number, dropped: readonly MustKeepItem[]): RetentionFields {
  return { must_keep: items, ...droppedFields(dropped) };
}

/** The summary of `job` with `body`: its frontmatter (sources bounded, retention recorded) and file text. */
export function finish(
  job: RollupJob,
  body: string,
  tokens: number,
  generator: SummaryMeta['generator'],
  usage: SummaryUsage,
  attempts: number,
  flagged: boolean,
  retention: RetentionFields = {},
): RollupResult {
  // Bounded as it is written (a very busy day holds its sources' count and hash), so the build's own copy equals a re-read.
  const meta: SummaryMeta = boundSources({
    memvault: 'summary',
    tier: job.tier,
    stream: job.stream,
    period: job.period,
    start: job.start,
    end: job.end,
    sources: job.sources,
    memories: job.memories,
    tokens,
    bytes: countBytes(body),
    generator,
    input_hash: job.inputHash,
    output_hash: sha256(body),
    ...(flagged ? { review: ['over-budget' as const] } : {}),
    ...retention,
    ...(job.folded ? { folded: job.folded } : {}),
  });
  return { job, text: writeSummaryFile(meta, body), body, meta, usage, attempts, flagged };
}
