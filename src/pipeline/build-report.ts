import type { CitationReport } from '../citations/build-step.js';
import type { CommitOutcome } from '../git/commit.js';
import type { IndexReport } from '../search/store.js';
import { CALENDAR_TIERS } from '../time/tiers.js';
import type { CalendarTier, Diagnostic } from '../vault/model.js';
import type { ArchiveMove } from './calendar/archive.js';
import type { TierEstimate } from './estimate.js';
import type { HeldSummary } from './calendar/plan.js';
import type { RollupError, RollupResult } from './calendar/rollup.js';
import type { Manifest } from './package/index.js';
import type { WaterfallReport } from './waterfall/build.js';
import type { RecordedChange } from './writer.js';

/**
 * What a build did (or, for a dry run, plans to do), as data: the CLI renders
 * it (src/cli/render/build.ts) and the commit step names it in its message.
 * No stage writes into it: each returns its part (`CalendarOutcome`, a
 * `WaterfallReport`, the files the index and usage wrote, …) and
 * `assembleReport` below makes the report from them, in one place; the commit
 * and the final timings are added by `finishReport`.
 */

/** The calendar tiers, finest first (the tier table, time/tiers.ts): the order a build plans and runs them in. */
export const TIERS: readonly CalendarTier[] = CALENDAR_TIERS;

/** Emitted when a tier starts (`done: 0`) and after each of its rollups; counts are for the tier so far. */
export interface ProgressEvent {
  stream: string;
  tier: CalendarTier;
  done: number;
  total: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  failed: number;
}

export interface TierStats {
  created: number;
  updated: number;
  merged: number;
  flagged: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Repeated requests: tighter retries after over-budget answers, and retries after faults. */
  retries: number;
  /** Rollups that produced nothing usable (listed in `StreamReport.failed`). */
  failed: number;
  /** Answers cleaned before use (meta-commentary, frontmatter, fences removed). */
  sanitized: number;
  ms: number;
}

/** A rollup that failed: nothing was written for it, a previous version stays, the tiers above wait. */
export interface FailedRollup {
  tier: CalendarTier;
  period: string;
  path: string;
  /** `timeout`, `connection`, `rate-limit`, `server`, `empty`, `auth`, `not-found`, `bad-request`, `truncated`, `over-budget`… */
  kind: string;
  reason: string;
  /** A previous version exists and was kept. */
  kept: boolean;
}

export interface StreamReport {
  name: string;
  memories: number;
  /** Memories dated after `now`, left for a later build. */
  future: number;
  tiers: Record<CalendarTier, TierStats>;
  held: HeldSummary[];
  deferred: { tier: CalendarTier; period: string; reason: string }[];
  /** Dry run: the summaries that would be generated (upper tiers estimated from the tiers below). */
  planned: { tier: CalendarTier; period: string; reason: string }[];
  /** Dry run: estimated summaries, merges, calls and tokens per tier (output tokens are upper bounds; retries not included). */
  estimate?: Record<CalendarTier, TierEstimate>;
  failed: FailedRollup[];
  /** Dry run: whether the package would be written, and why (`missing`, `stale`, `inputs change`, `fresh`). */
  packagePlan?: { path: string; write: boolean; reason: string };
  package: { path: string; tokens: number; bytes: number; changed: boolean; degraded: number; leftOut: number } | null;
}

export interface BuildReport {
  now: string;
  /** The vault folder, relative to the project root (paths in the report are relative to it). */
  vault: string;
  dryRun: boolean;
  streams: StreamReport[];
  /** Streams with `waterfall: true`: compactions run and CONTEXT.md (docs/waterfall.md). */
  waterfall: WaterfallReport[];
  /** Files written, in the order written (none in a dry run: see `wouldWrite`). */
  written: string[];
  historyCopies: string[];
  /**
   * Dry run: every file a build would write or move (history copies and archive moves included), with its bytes, as
   * the dry run's recording writer kept them (writer.ts); `estimate`: it holds placeholder summaries, its size is an estimate.
   */
  wouldWrite?: RecordedChange[];
  /** Files moved to `archive/` (a dry run lists the moves it would make). */
  archived: ArchiveMove[];
  /** What the commit step did; null for a dry run. */
  commit: CommitOutcome | null;
  diagnostics: Diagnostic[];
  /**
   * `read`: files read and their frontmatter parsed (not in the parse cache); `parsed`: markdown bodies parsed, at load (new memories) or when a
   * stage read them (a fresh clone parses only what it summarizes and packages).
   * `workerParses`, `workerRollups`: files parsed and summaries made on the build's worker threads (build-pool.ts); `helper`: the vault was walked on a
   * thread of its own (large vaults, build-pool.ts). Timings in ms: `load` (find and parse files),
   * `plan` (planning every stream, the package's input hash included), `package` and `index` (assembly and writing),
   * `commit` (the git commit), `ms` the whole build.
   */
  stats: {
    files: number;
    read: number;
    parsed: number;
    workerParses: number;
    workerRollups: number;
    helper: boolean;
    ms: number;
    load: number;
    plan: number;
    package: number;
    index: number;
    commit: number;
    /**
     * Milliseconds by stage (pipeline/build-timings.ts, docs/performance.md): the main thread's (`load`, `plan`,
     * `rollups`, `write`, `package`, `index`, `search`, `commit`, `gc.main`) and the build threads' summed over them
     * (`parse`, `parse.*`, `summarize`, `summarize.*`, `near-duplicates`, `gc.workers`); a rollup made on the main
     * thread adds to `summarize.*` too. Absent in a dry run.
     */
    stages?: Record<string, number>;
  };
  generator: { provider: string; model: string };
  /** The search index (.memvault/search/): documents added, re-indexed and removed by this build (src/read/search/store.ts). */
  search?: IndexReport;
  /** The memories' citations checked against the repository (src/citations/): what was asked again, what became stale. */
  citations?: CitationReport;
}

/** What one stream's calendar stage did (calendar/apply.ts): its report, its package's manifest, its share of the build's lists. */
export interface CalendarOutcome {
  report: StreamReport;
  manifest: Manifest;
  /** Files written, in the order written: the package when written first (watch), summaries tier after tier, the package. */
  written: string[];
  historyCopies: string[];
  archived: ArchiveMove[];
  /** Milliseconds spent on the package. */
  packageMs: number;
  /** Summaries made on the build's worker threads. */
  workerRollups: number;
}

/** What one stream's stages did in a build: its waterfall (`waterfall: true`), its calendar stage (`calendar: true`). */
export interface StreamOutcome {
  waterfall?: WaterfallReport;
  calendar?: CalendarOutcome;
}

/** What a build's stages returned, in the order they ran: everything `assembleReport` makes the report from. */
export interface BuildParts {
  now: Date;
  vault: string;
  dryRun: boolean;
  generator: { provider: string; model: string };
  /** The load stage's counts and its milliseconds. */
  load: { files: number; read: number; parsed: number; workerParses: number; helper: boolean; ms: number };
  /** Diagnostics by where they came from; the report lists them in this order. */
  diagnostics: {
    load: readonly Diagnostic[];
    housekeeping: readonly Diagnostic[];
    plan: readonly Diagnostic[];
    nearDuplicates: readonly Diagnostic[];
    facts: readonly Diagnostic[];
    search: readonly Diagnostic[];
    movedAside: readonly Diagnostic[];
    summarizer: readonly Diagnostic[];
  };
  /** A dry run: the plan's view of the streams, the waterfall and the archive (build-plan.ts `plannedReport`). */
  planned?: Pick<BuildReport, 'streams' | 'waterfall' | 'archived'>;
  /** A dry run: what its recording writer kept (writer.ts). */
  wouldWrite?: readonly RecordedChange[];
  /** Per stream, in the plan's order, what its waterfall and its calendar stage did (a dry run's, into its recording writer). */
  applied: readonly StreamOutcome[];
  /** Files written after the streams: INDEX.md and index.json, then the streams' usage.json. */
  indexWritten: readonly string[];
  usageWritten: readonly string[];
  /** Hand-written files moved aside from generated paths (housekeeping.ts `movedAsideReport`): kept as history copies. */
  movedAside: readonly string[];
  citations?: CitationReport;
  search?: IndexReport;
  ms: { plan: number; index: number };
}

/**
 * The build's report from its stages' parts. The lists keep the order the
 * stages wrote in; a file written twice (the package, with `packageFirst`)
 * is listed once. `commit` is null and `stats.commit` 0 until `finishReport`.
 */
export function assembleReport(parts: BuildParts): BuildReport {
  const calendar = parts.applied.flatMap((stream) => (stream.calendar ? [stream.calendar] : []));
  const waterfall = parts.applied.flatMap((stream) => (stream.waterfall ? [stream.waterfall] : []));
  const written = parts.applied.flatMap((stream) => [...(stream.waterfall?.written ?? []), ...(stream.calendar?.written ?? [])]);
  const historyCopies = parts.applied.flatMap((stream) => [
    ...(stream.waterfall?.historyCopies ?? []),
    ...(stream.calendar?.historyCopies ?? []),
  ]);
  const d = parts.diagnostics;
  return {
    now: parts.now.toISOString(),
    vault: parts.vault,
    dryRun: parts.dryRun,
    streams: parts.planned?.streams ?? calendar.map((c) => c.report),
    waterfall: parts.planned?.waterfall ?? waterfall,
    // A dry run writes nothing: what a build would write is `wouldWrite`.
    written: parts.dryRun ? [] : [...new Set([...written, ...parts.indexWritten, ...parts.usageWritten])],
    historyCopies: parts.dryRun ? [] : [...new Set([...historyCopies, ...parts.movedAside])],
    ...(parts.wouldWrite ? { wouldWrite: [...parts.wouldWrite] } : {}),
    archived: parts.planned?.archived ?? calendar.flatMap((c) => c.archived),
    commit: null,
    diagnostics: [...d.load, ...d.housekeeping, ...d.plan, ...d.nearDuplicates, ...d.facts, ...d.search, ...d.movedAside, ...d.summarizer],
    stats: {
      files: parts.load.files,
      read: parts.load.read,
      parsed: parts.load.parsed,
      workerParses: parts.load.workerParses,
      workerRollups: calendar.reduce((sum, c) => sum + c.workerRollups, 0),
      helper: parts.load.helper,
      ms: 0,
      load: parts.load.ms,
      plan: parts.ms.plan,
      package: calendar.reduce((sum, c) => sum + c.packageMs, 0),
      index: parts.ms.index,
      commit: 0,
    },
    generator: parts.generator,
    ...(parts.citations ? { citations: parts.citations } : {}),
    ...(parts.search ? { search: parts.search } : {}),
  };
}

/** The report with what the commit step did and the build's final counts and timings. */
export function finishReport(
  report: BuildReport,
  end: { commit: CommitOutcome | null; parsed: number; commitMs: number; ms: number; stages?: Record<string, number> },
): BuildReport {
  const stats = { ...report.stats, parsed: end.parsed, ms: end.ms, commit: end.commitMs, ...(end.stages ? { stages: end.stages } : {}) };
  return { ...report, commit: end.commit, stats };
}

export function emptyStats(): TierStats {
  return {
    created: 0,
    updated: 0,
    merged: 0,
    flagged: 0,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    retries: 0,
    failed: 0,
    sanitized: 0,
    ms: 0,
  };
}

export function addUsage(stats: TierStats, result: RollupResult): void {
  if (result.job.existing) stats.updated++;
  else stats.created++;
  if (result.attempts === 0) stats.merged++;
  if (result.flagged) stats.flagged++;
  if (result.notes && result.notes.length > 0) stats.sanitized++;
  stats.calls += result.usage.calls;
  stats.inputTokens += result.usage.inputTokens;
  stats.outputTokens += result.usage.outputTokens;
  stats.retries += Math.max(0, result.attempts - 1) + (result.usage.retries ?? 0);
}

export function addFailure(stats: TierStats, failure: RollupError): void {
  stats.failed++;
  stats.calls += failure.usage.calls;
  stats.inputTokens += failure.usage.inputTokens;
  stats.outputTokens += failure.usage.outputTokens;
  stats.retries += Math.max(0, failure.attempts - 1) + (failure.usage.retries ?? 0);
}

/** `--strict`: rollups that failed, and summaries flagged over budget, over every stream. */
export function incompleteCounts(report: BuildReport): { failed: number; flagged: number } {
  const failed =
    report.streams.reduce((sum, s) => sum + s.failed.length, 0) + report.waterfall.filter((w) => w.failed !== undefined).length;
  const flagged = report.streams.reduce((sum, s) => sum + Object.values(s.tiers).reduce((n, t) => n + t.flagged, 0), 0);
  return { failed, flagged };
}
