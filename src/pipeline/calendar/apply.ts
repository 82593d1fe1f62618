import path from 'node:path';
import pLimit from 'p-limit';
import { sha256 } from '../../util/hash.js';
import { loadTokenizer } from '../../util/tokens.js';
import type { ParsedContent } from '../../store/cache.js';
import type { CalendarTier, Memory, StreamState, Summary } from '../../vault/model.js';
import { applyArchive, movesDue } from './archive.js';
import type { BuildContext } from '../build-context.js';
import type { StreamPlan } from '../build-plan.js';
import {
  addFailure,
  addUsage,
  type CalendarOutcome,
  emptyStats,
  type FailedRollup,
  type StreamReport,
  TIERS,
  type TierStats,
} from '../build-report.js';
import { writePackage } from '../outputs.js';
import { type HeldSummary, sourceRefOf, type RollupJob } from './plan.js';
import { resolveTier } from './plan-periods.js';
import { keepSampled, RollupError, type RollupContext, type RollupResult, rollupSourcesOf, runRollup } from './rollup.js';
import { KeptRollups } from '../../store/derived-memo-rollups.js';
import { STATE_DIR } from '../../config/file.js';
import { tierRecord } from '../../time/tiers.js';
import type { WriteOp, WriteResult } from '../write.js';
import { BODIES_HELD } from '../../load/load.js';

/**
 * Applies the calendar part of a stream's plan (build-plan.ts) as planned: the
 * tiers in order (each summary written as soon as it is made), the archive
 * moves, then the package. A tier above daily resolves its planned periods
 * once the tier below is written (plan-periods.ts `resolveTier`: their inputs
 * hashed as they are then); the archive moves the planned candidates the tiers
 * above hold by then; the package is hashed again only when something was
 * written or moved. Returns what it did (`CalendarOutcome`); the build's
 * report is assembled from it in build-report.ts.
 */

/** What one tier's rollups did. */
interface TierOutcome {
  stats: TierStats;
  failed: FailedRollup[];
  written: string[];
  historyCopies: string[];
  workerRollups: number;
}

/** Runs one stream's calendar plan. `unchanged`: nothing was written for this stream since the plan (its waterfall wrote nothing). */
export async function applyCalendar(
  stream: StreamState,
  plan: StreamPlan,
  ctx: BuildContext,
  unchanged: boolean,
): Promise<CalendarOutcome> {
  const memoriesById = new Map(stream.memories.map((memory) => [memory.id, memory]));
  // The only stale dailies are of days the package shows in full: it can show the edit before they are summarized again.
  const first = plan.packageFirst ? timed(() => writePackage(stream, plan.bands, ctx, unchanged ? plan.package : undefined)) : undefined;
  let changed = !unchanged;
  const held: HeldSummary[] = [];
  const deferred: StreamReport['deferred'] = [];
  const tiers: TierOutcome[] = [];
  for (const tier of TIERS) {
    // A tier's inputs are the outputs of the tier below: its planned periods are hashed now that those are written.
    const coarser = plan.coarser.find((c) => c.tier === tier);
    const tierPlan = coarser ? resolveTier(coarser, stream.summaries, plan.bands.longtermThrough, plan.context) : plan.finest;
    held.push(...tierPlan.held);
    deferred.push(...tierPlan.deferred.map((d) => ({ tier, ...d })));
    tiers.push(await runTier(tier, tierPlan.jobs, stream, memoriesById, ctx));
    if (tierPlan.jobs.length > 0) changed = true;
  }
  // Archive what is past retention once the tiers above hold it; the package and the index then see the final paths.
  const moves = changed ? movesDue(plan.archivePlan, stream) : plan.archive;
  const archived = moves.length > 0 ? applyArchive(archiveTarget(ctx), stream, moves) : [];
  if (archived.length > 0) changed = true;
  // Only this stage writes the package: unless it was written first (watch), the manifest on disk is the one the plan read.
  const onDisk = plan.packageFirst ? undefined : { manifest: plan.package.previous };
  // The memories are those the plan hashed unless the waterfall wrote or the archive moved some.
  const memoriesDigest = unchanged && archived.length === 0 ? plan.package.memoriesDigest : undefined;
  const last = timed(() => writePackage(stream, plan.bands, ctx, changed ? undefined : plan.package, onDisk, memoriesDigest));
  const report: StreamReport = {
    name: stream.name,
    memories: stream.memories.length,
    future: plan.future,
    tiers: Object.fromEntries(TIERS.map((tier, at) => [tier, tiers[at]!.stats])) as Record<CalendarTier, TierStats>,
    held,
    deferred,
    planned: [],
    failed: tiers.flatMap((t) => t.failed),
    package: last.value.package,
  };
  return {
    report,
    manifest: last.value.manifest,
    written: [...(first?.value.written ?? []), ...tiers.flatMap((t) => t.written), ...last.value.written],
    historyCopies: tiers.flatMap((t) => t.historyCopies),
    archived,
    packageMs: (first?.ms ?? 0) + last.ms,
    workerRollups: tiers.reduce((sum, t) => sum + t.workerRollups, 0),
  };
}

/** Where the archive moves go: the build's writer, its parse cache and content store. */
function archiveTarget(ctx: BuildContext) {
  return { writer: ctx.writer, cache: ctx.loaded.cache, content: ctx.loaded.content };
}

/** `make()` and the whole milliseconds it took. */
function timed<T>(make: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = make();
  return { value, ms: Math.round(performance.now() - started) };
}

async function runTier(
  tier: CalendarTier,
  jobs: readonly RollupJob[],
  stream: StreamState,
  memoriesById: ReadonlyMap<string, Memory>,
  ctx: BuildContext,
): Promise<TierOutcome> {
  if (jobs.length === 0) return { stats: emptyStats(), failed: [], written: [], historyCopies: [], workerRollups: 0 };
  const started = performance.now();
  const rollupContext = rollupContextOf(stream, memoriesById, ctx);
  const writer = summaryWriter(tier, jobs.length, stream, ctx);
  const made = await makeSummaries(tier, jobs, rollupContext, ctx, writer.settle);
  const outcome = recordOutcomes(tier, made.outcomes, writer, stream, ctx);
  // A tier's summaries (and the memories read for them) go to the state store instead of staying in memory (issue 29).
  ctx.loaded.content.release(BODIES_HELD);
  outcome.stats.ms = Math.round(performance.now() - started);
  return { ...outcome, workerRollups: made.onWorkers ? jobs.length : 0 };
}

/** Called as each summary is made (or fails): `index` is its job's. */
type Settle = (index: number, outcome: RollupResult | RollupError, parsed?: ParsedContent) => void;

/**
 * Writes each summary as soon as it is made, while the others are still
 * being made (the main thread would only wait), and reports progress. The
 * writes are kept in job order whatever order the summaries came in.
 */
function summaryWriter(
  tier: CalendarTier,
  total: number,
  stream: StreamState,
  ctx: BuildContext,
): { settle: Settle; writes: (WriteResult | undefined)[]; parsedBodies: Map<RollupResult, ParsedContent> } {
  let done = 0;
  const progress = { calls: 0, inputTokens: 0, outputTokens: 0, failed: 0 };
  ctx.options.onProgress?.({ stream: stream.name, tier, done, total, ...progress });
  const count = (outcome: RollupResult | RollupError): void => {
    if (outcome instanceof RollupError) progress.failed++;
    progress.calls += outcome.usage.calls;
    progress.inputTokens += outcome.usage.inputTokens;
    progress.outputTokens += outcome.usage.outputTokens;
    ctx.options.onProgress?.({ stream: stream.name, tier, done: ++done, total, ...progress });
  };
  const writes: (WriteResult | undefined)[] = new Array(total);
  // Bodies of summaries the rollup workers parsed already.
  const parsedBodies = new Map<RollupResult, ParsedContent>();
  const settle: Settle = (index, outcome, parsed) => {
    count(outcome);
    if (outcome instanceof RollupError) return;
    if (parsed) parsedBodies.set(outcome, parsed);
    const op: WriteOp = {
      path: outcome.job.path,
      text: outcome.text,
      history: { stream: stream.name, tier, period: outcome.job.tier === 'longterm' ? 'longterm' : outcome.job.period },
    };
    writes[index] = ctx.clock
      ? ctx.clock.time('write', () => ctx.writer.write([op], ctx.options.now))
      : ctx.writer.write([op], ctx.options.now);
  };
  return { settle, writes, parsedBodies };
}

/** Makes a tier's summaries, in rollup workers when they pay off, else in this process `llm.concurrency` at a time. In job order. */
async function makeSummaries(
  tier: CalendarTier,
  jobs: readonly RollupJob[],
  rollupContext: RollupContext,
  ctx: BuildContext,
  settle: Settle,
): Promise<{ outcomes: (RollupResult | RollupError)[]; onWorkers: boolean }> {
  const workers = ctx.rollups;
  if (workers?.takes(ctx.summarizer.provider, jobs.length)) {
    const settings = { tokenizer: rollupContext.tokenizer, budgets: rollupContext.budgets, retries: rollupContext.retries };
    const made = workers.run(
      jobs,
      (job) => rollupSourcesOf(job, rollupContext),
      settings,
      (index, outcome) => {
        if (outcome instanceof RollupError) return settle(index, outcome);
        keepSampled(outcome.result, rollupContext); // a very busy day's summary, for the next build (rollup-kept.ts)
        settle(index, outcome.result, outcome.parsed);
      },
    ); // the jobs are on their way when this returns
    // The package counts tokens next: load the tables here while a worker makes the last tier's summary (~200 ms).
    if (tier === 'longterm') loadTokenizer(ctx.config.tokenizer);
    const pooled = await made;
    return { outcomes: pooled.map((outcome) => (outcome instanceof RollupError ? outcome : outcome.result)), onWorkers: true };
  }
  const outcomes = await pLimit(ctx.config.llm.concurrency).map(jobs, async (job, index) => {
    let outcome: RollupResult | RollupError;
    try {
      outcome = await runRollup(job, rollupContext);
    } catch (error) {
      // One failed summary never aborts the others; the tiers above it wait (the planner defers them).
      if (!(error instanceof RollupError)) throw error;
      outcome = error;
    }
    settle(index, outcome);
    return outcome;
  });
  return { outcomes, onWorkers: false };
}

/** A tier's writes, failures and usage, in job order; records each written summary in the stream and the parse cache. */
function recordOutcomes(
  tier: CalendarTier,
  outcomes: readonly (RollupResult | RollupError)[],
  { writes, parsedBodies }: ReturnType<typeof summaryWriter>,
  stream: StreamState,
  ctx: BuildContext,
): Omit<TierOutcome, 'workerRollups'> {
  const stats = emptyStats();
  const failed: FailedRollup[] = [];
  const done = writes.filter((written) => written !== undefined);
  for (const outcome of outcomes) {
    if (outcome instanceof RollupError) {
      failed.push({
        tier,
        period: outcome.job.period,
        path: outcome.job.path,
        kind: outcome.kind,
        reason: outcome.message,
        kept: outcome.job.existing !== undefined,
      });
      addFailure(stats, outcome);
      continue;
    }
    recordWritten(outcome, stream, ctx, parsedBodies.get(outcome));
    addUsage(stats, outcome);
  }
  return { stats, failed, written: done.flatMap((w) => w.written), historyCopies: done.flatMap((w) => w.historyCopies) };
}

function recordWritten(result: RollupResult, stream: StreamState, ctx: BuildContext, parsedBody?: ParsedContent): void {
  const fileSha = sha256(result.text);
  const summary: Summary = { meta: result.meta, path: result.job.path, sha256: fileSha, bodyHash: sha256(result.body) };
  stream.summaries.set(summary.path, summary);
  const parsed = ctx.loaded.content.rememberSummary(fileSha, result.body, parsedBody);
  // Record the file in the parse cache now, so the next build does not read it again.
  const stat = ctx.writer.stat(summary.path)!;
  ctx.loaded.cache.set(
    summary.path,
    { size: stat.size, mtimeMs: stat.mtimeMs, sha256: fileSha, result: { type: 'summary', summary } },
    parsed,
  );
}

/** What `runRollup` needs for one stream (also the dry run's estimate). */
export function rollupContextOf(stream: StreamState, memoriesById: ReadonlyMap<string, Memory>, ctx: BuildContext): RollupContext {
  return {
    summarizer: ctx.summarizer,
    tokenizer: ctx.config.tokenizer,
    budgets: tierRecord((row) => ctx.config.calendar[row.budgetKey]),
    retries: ctx.config.llm.retries,
    ...(ctx.clock ? { time: ctx.clock.time } : {}),
    content: ctx.loaded.content,
    memoriesById,
    summariesById: new Map([...stream.summaries.values()].map((summary) => [sourceRefOf(summary).id, summary])),
    // A dry run's placeholders are not kept for the next build (nor is anything written under `.memvault/`).
    ...(ctx.writer.recording ? {} : { kept: new KeptRollups(path.join(ctx.options.root, STATE_DIR)) }),
  };
}
