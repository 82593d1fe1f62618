import * as z from 'zod';
import type { Summarizer, SummarySource } from '../../llm/types.js';
import type { KeptRollups } from '../../store/derived-memo-rollups.js';
import { hashValue } from '../../util/hash.js';
import type { TokenizerName } from '../../util/tokens.js';
import type { TierBudget } from '../../config/schema.js';
import type { RollupJob } from './plan.js';
import { finish, type RollupResult } from './rollup-result.js';

/**
 * A very busy period's summary made once per sample (issue 29). Above
 * `MAX_SUMMARIZED_SOURCES` a summary reads a sample of its sources, and a
 * memory added at the end of the day usually leaves that sample as it was
 * (`strided`, rollup-sources.ts). What the summarizer made of the same sample,
 * with the same budget, retries and summarizer, is then taken from the state
 * store (derived-memo-rollups.ts) instead of being made again: the file is
 * written anew around it (its sources, memories and input hash are the job's).
 *
 * Only the embedded summarizer's work is kept: it is deterministic, so the
 * kept answer is the one it would give again, and the files are the same
 * bytes as a build without the store writes. A model's answer is not reused
 * (another call may answer differently, and the report counts its calls).
 */

/** What a summarizer's settings must be for its answers to be kept: the embedded one. */
export function keepsAnswers(summarizer: Pick<Summarizer, 'provider'>): boolean {
  return summarizer.provider === 'extractive';
}

/** What a summary's file needs besides its job, and what the report says of it. */
const madeSchema = z.object({
  body: z.string(),
  tokens: z.number(),
  generator: z.object({ provider: z.string(), model: z.string(), prompt: z.string() }),
  usage: z.object({ calls: z.number(), inputTokens: z.number(), outputTokens: z.number(), retries: z.number().optional() }),
  attempts: z.number(),
  retention: z.object({ must_keep: z.number().optional(), dropped: z.array(z.string()).optional(), dropped_total: z.number().optional() }),
  notes: z.array(z.string()).optional(),
});

export interface KeptRollupSettings {
  summarizer: Summarizer;
  tokenizer: TokenizerName;
  budget: TierBudget;
  retries: number;
}

/**
 * The summary of `job` from `sources` (a sample): the one kept for the same request if there is one, else `make()`'s,
 * kept for the next build unless it was flagged over budget (a flagged answer may be refused: it is made again).
 */
export async function keptOrMade(
  job: RollupJob,
  sources: readonly SummarySource[],
  settings: KeptRollupSettings,
  kept: KeptRollups,
  make: () => Promise<RollupResult>,
): Promise<RollupResult> {
  if (!keepsAnswers(settings.summarizer)) return make();
  const key = requestKey(job, sources, settings);
  const found = readMade(kept.get(job.path, key));
  if (found) {
    const result = finish(job, found.body, found.tokens, found.generator, found.usage, found.attempts, false, found.retention);
    return found.notes ? { ...result, notes: found.notes } : result;
  }
  const result = await make();
  keepMade(result, sources, settings, kept, key);
  return result;
}

/** Keeps what was made for `result.job` from `sources` (a sample) for the next build: not a flagged answer (it may be refused). */
export function keepMade(
  result: RollupResult,
  sources: readonly SummarySource[],
  settings: KeptRollupSettings,
  kept: KeptRollups,
  key = requestKey(result.job, sources, settings),
): void {
  if (keepsAnswers(settings.summarizer) && !result.flagged) kept.set(result.job.path, key, JSON.stringify(madeOf(result)));
}

/** Everything the summarizer's answer and the retention check depend on: the job's period, the sources as sent, the settings. */
function requestKey(job: RollupJob, sources: readonly SummarySource[], settings: KeptRollupSettings): string {
  const { summarizer, tokenizer, budget, retries } = settings;
  return hashValue({
    v: 1,
    job: { tier: job.tier, stream: job.stream, period: job.period, start: job.start, end: job.end, path: job.path },
    summarizer: { provider: summarizer.provider, model: summarizer.model, prompt: summarizer.promptId(job.tier) },
    tokenizer,
    budget,
    retries,
    sources,
  });
}

function madeOf(result: RollupResult): z.infer<typeof madeSchema> {
  const { meta } = result;
  return {
    body: result.body,
    tokens: meta.tokens,
    generator: meta.generator,
    usage: result.usage,
    attempts: result.attempts,
    retention: {
      ...(meta.must_keep !== undefined ? { must_keep: meta.must_keep } : {}),
      ...(meta.dropped !== undefined ? { dropped: meta.dropped } : {}),
      ...(meta.dropped_total !== undefined ? { dropped_total: meta.dropped_total } : {}),
    },
    ...(result.notes ? { notes: result.notes } : {}),
  };
}

function readMade(text: string | undefined): z.infer<typeof madeSchema> | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = madeSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
