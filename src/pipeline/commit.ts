import type { BuildReport } from './build-report.js';
import type { Manifest } from './package/index.js';
import type { Memory } from '../vault/model.js';
import { type PendingCommit, pinPending, withPending } from './pending.js';
import { isTempPath } from '../util/atomic.js';
import { classifyPath } from '../vault/paths.js';
import {
  ARCHIVED_TIERS,
  CALENDAR_TIER_TABLE,
  CALENDAR_TIERS,
  calendarTier,
  FINEST_TIER,
  isSingleSummaryTier,
  tierOfFolder,
} from '../time/tiers.js';
import { commitPaths, type CommitOutcome, type CommitRequest, type CommitSession, type CommitSkip } from '../git/commit.js';

/**
 * The commit step of `memvault build`: which paths to commit and what the
 * message says, from the build report. `selectPaths` and `commitMessage` are
 * pure; `commitBuild` is the single call at the end of a build.
 */

/** What the commit needs to know about each stream besides the report. */
export interface StreamSources {
  name: string;
  /** The stream's memories as the build saw them (after archiving). */
  memories: readonly Memory[];
  /** The package manifest, when the package was assembled. */
  manifest: Manifest | undefined;
}

/**
 * Commits the build's changes, or passes a skip note through. `pending`:
 * what earlier builds wrote or moved without committing (project/pending.ts),
 * committed with this build's changes and named in its message.
 */
export async function commitBuild(
  session: CommitSession | CommitSkip,
  report: BuildReport,
  streams: readonly StreamSources[],
  now: Date,
  pending?: PendingCommit,
): Promise<CommitOutcome> {
  if ('status' in session) return session;
  const all = withPending(report, pending);
  return commitPaths(session, { ...pinPending(selectPaths(all, streams), pending), message: commitMessage(all, session.recover), now });
}

/**
 * Every file the build wrote, copied to `history/` or moved to the archive
 * (both ends of a move), plus the memories behind what it wrote: each
 * regenerated daily's memories, and the memories a rewritten package holds in
 * full. Memories are pinned to the content hash the build read.
 */
export function selectPaths(report: BuildReport, streams: readonly StreamSources[]): Pick<CommitRequest, 'paths' | 'pinned' | 'keep'> {
  const paths = new Set<string>([...report.written, ...report.historyCopies]);
  for (const move of report.archived ?? []) {
    paths.add(move.from);
    paths.add(move.to);
  }
  const pinned = new Map<string, string>();
  const writtenDays = new Map<string, Set<string>>();
  for (const file of report.written) {
    const role = summaryOf(file);
    if (role?.tier === FINEST_TIER) {
      const days = writtenDays.get(role.stream) ?? new Set<string>();
      days.add(role.period);
      writtenDays.set(role.stream, days);
    }
  }
  // A waterfall's CONTEXT.md and summaries are built from the whole stream: pin all its memories (unchanged ones cost a stat).
  const waterfallWritten = new Set(
    report.written.filter((file) => /^[^/]+\/(waterfall\/|CONTEXT\.md$)/.test(file)).map((file) => file.split('/')[0]!),
  );
  for (const stream of streams) {
    const days = writtenDays.get(stream.name);
    const everything = waterfallWritten.has(stream.name);
    const packageWritten = report.streams.some((s) => s.name === stream.name && s.package?.changed);
    const inPackage = new Set(
      packageWritten && stream.manifest
        ? stream.manifest.items.filter((item) => item.tier === 'raw' && item.status !== 'left-out').map((item) => item.path)
        : [],
    );
    for (const memory of stream.memories) {
      if (everything || days?.has(memory.day) || inPackage.has(memory.path)) pinned.set(memory.path, memory.sha256);
    }
  }
  for (const file of paths) pinned.delete(file);
  const keep = new Set(report.streams.flatMap((stream) => stream.held.map((held) => held.path)));
  // A temporary file of a killed writer is never committed, whatever listed it (housekeeping.ts removes it).
  return { paths: [...paths].filter((file) => !isTempPath(file)).sort(), pinned, keep };
}

/**
 * The commit message: a subject naming the newest, coarsest period rolled up
 * and counts (`memvault: rollup 2026-W07 — 3 daily, 1 weekly, 2 archived`),
 * then one line per stream with the periods, moves and kept edits.
 */
export function commitMessage(report: BuildReport, recovered = false): string {
  const byStream = new Map<string, Record<string, string[]>>();
  for (const file of report.written) {
    const role = summaryOf(file);
    if (!role) continue;
    const tiers = byStream.get(role.stream) ?? {};
    (tiers[role.tier] ??= []).push(role.period);
    byStream.set(role.stream, tiers);
  }
  const counts: Record<string, number> = {};
  for (const tiers of byStream.values())
    for (const [tier, periods] of Object.entries(tiers)) counts[tier] = (counts[tier] ?? 0) + periods.length;
  const archived = report.archived ?? [];

  let headline = '';
  // The newest period of the coarsest tier that has periods; a one-per-stream tier (long-term) has none to name.
  for (const tier of [...CALENDAR_TIERS].reverse().filter((tier) => !isSingleSummaryTier(tier))) {
    const periods = [...byStream.values()].flatMap((tiers) => tiers[tier] ?? []).sort();
    if (periods.length > 0) {
      headline = periods[periods.length - 1]!;
      break;
    }
  }
  const waterfall = (counts['waterfall-recent'] ?? 0) + (counts['waterfall-longterm'] ?? 0) > 0;
  const single = [...CALENDAR_TIERS].reverse().find((tier) => isSingleSummaryTier(tier) && counts[tier]);
  if (!headline && single) headline = calendarTier(single).label;
  if (!headline && waterfall) headline = 'waterfall';
  const parts = CALENDAR_TIERS.filter((tier) => counts[tier]).map((tier) =>
    isSingleSummaryTier(tier) ? calendarTier(tier).label : `${counts[tier]} ${calendarTier(tier).label}`,
  );
  if (waterfall) parts.push('waterfall compaction');
  if (archived.length > 0) parts.push(`${archived.length} archived`);
  const subject = headline
    ? `memvault: rollup ${headline} — ${parts.join(', ')}`
    : archived.length > 0
      ? `memvault: archive — ${parts.join(', ')}`
      : `memvault: update ${updatedOutputs(report.written)}${recovered ? ' (finish an interrupted build)' : ''}`;

  const lines: string[] = [];
  for (const stream of report.streams) {
    const tiers = byStream.get(stream.name);
    if (tiers) {
      const listed = CALENDAR_TIERS.filter((tier) => tiers[tier]).map((tier) =>
        isSingleSummaryTier(tier) ? calendarTier(tier).label : `${calendarTier(tier).label} ${[...tiers[tier]!].sort().join(', ')}`,
      );
      lines.push(`${stream.name}: ${listed.join('; ')}`);
    }
    const moves = archived.filter((move) => move.stream === stream.name);
    if (moves.length > 0) {
      const kinds = countBy(moves.map((move) => move.kind));
      const plural: Record<string, string> = {
        memory: 'memories',
        ...Object.fromEntries(CALENDAR_TIER_TABLE.map((row) => [row.name, row.plural])),
      };
      const quarters = [...new Set(moves.map((move) => move.quarter))].sort();
      lines.push(
        `${stream.name}: archived ${Object.entries(kinds)
          .map(([kind, n]) => `${n} ${n === 1 ? kind : plural[kind]}`)
          .join(', ')} to archive/${quarters.join(', archive/')}`,
      );
    }
    if (stream.package?.changed)
      lines.push(`${stream.name}: UPLOAD_PACKAGE.md ${stream.package.tokens} tokens, ${stream.package.bytes} bytes`);
    for (const held of stream.held) lines.push(`${stream.name}: kept hand-edited ${held.path} (${held.status})`);
  }
  if (report.historyCopies.length > 0) lines.push(`previous versions kept: ${report.historyCopies.length} file(s) under history/`);
  if (recovered) lines.push('also commits what an interrupted build left uncommitted');
  lines.push(`memvault build as of ${report.now} (${report.generator.provider}/${report.generator.model})`);
  return `${subject}\n\n${lines.join('\n')}\n`;
}

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const value of values) out[value] = (out[value] ?? 0) + 1;
  return out;
}

/** `<stream>/archive/<quarter>/<folder>/<period>.md` of an archived tier (folders are plain words: no escaping needed). */
const ARCHIVED_SUMMARY = new RegExp(
  `^([^/]+)/archive/[^/]+/(${ARCHIVED_TIERS.map((tier) => calendarTier(tier).folder).join('|')})/([^/]+)\\.md$`,
);

/** Stream, tier and period of a generated summary path, live (`main/daily/…`) or archived (`main/archive/2026-Q1/daily/…`). */
function summaryOf(file: string): { stream: string; tier: string; period: string } | undefined {
  const role = classifyPath(file);
  if (role.role === 'summary') return role;
  const archived = ARCHIVED_SUMMARY.exec(file);
  return archived ? { stream: archived[1]!, tier: tierOfFolder(archived[2]!)!, period: archived[3]! } : undefined;
}

/** `package, CONTEXT.md, index`: the assembled outputs among the written files, for a subject without rollups. */
function updatedOutputs(written: readonly string[]): string {
  const names = [
    written.some((file) => file.endsWith('/UPLOAD_PACKAGE.md')) ? 'package' : '',
    written.some((file) => file.endsWith('/CONTEXT.md')) ? 'CONTEXT.md' : '',
    written.includes('index.json') ? 'index' : '',
  ].filter(Boolean);
  return names.length > 0 ? names.join(', ') : 'vault';
}
