import type { CalendarConfig } from '../../config/schema.js';
import { crashPoint } from '../../util/crash-point.js';
import type { ContentStore } from '../../load/content-store.js';
import { addDays, quarterOf, weekRange } from '../../time/periods.js';
import type { CachedResult, ParseCache } from '../../store/cache.js';
import {
  ARCHIVED_TIERS,
  type ArchivedTier,
  type CalendarTier,
  calendarTier,
  coarserTier,
  FINEST_TIER,
  isSingleSummaryTier,
} from '../../time/tiers.js';
import type { Memory, SourceRef, StreamState, Summary } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import { listedSources } from '../../vault/summary-file.js';
import { dailySourcesByDay } from '../../maintain/duplicate-marks.js';
import { sourceRefOf, summariesAtHome } from './plan.js';
import type { Writer } from '../writer.js';

/**
 * Stage 5b, archive: moves what is past retention into
 * `<stream>/archive/<YYYY-Qn>/`, never deleting anything.
 *
 * - a memory older than `retention.memories_days` → `archive/<quarter of its day>/<its path inside memories/>`;
 * - a daily older than `retention.daily_days` → `archive/<quarter>/daily/<day>.md`;
 * - a weekly that ended more than `retention.weekly_weeks` weeks ago → `archive/<quarter of its Thursday>/weekly/<week>.md`.
 *
 * Only what the pyramid already holds is archived: a memory only when its
 * daily lists it (same content hash), that daily's weekly lists the daily and
 * the weekly's monthly lists the weekly; a daily or weekly only when the
 * tiers above list it likewise. Pinned memories stay in `memories/`.
 *
 * A move is a rename: the content, and so every content hash and every
 * summary's `input_hash`, is unchanged, and memory ids come from the path
 * inside `memories/` (kept under the quarter folder) or from frontmatter.
 * The loader reads archived memories as memories and archived summaries
 * under their usual key, so nothing is regenerated because of a move.
 */

export type RetentionConfig = CalendarConfig['retention'];

export interface ArchiveMove {
  stream: string;
  kind: 'memory' | ArchivedTier;
  /** Memory id, or the summary's period. */
  id: string;
  /** Vault-relative paths. */
  from: string;
  to: string;
  quarter: string;
}

/**
 * What may move past retention, planned once: memories and summaries old enough, whether or not the tiers above hold
 * them yet. The apply step moves those they hold once the rollups are written (`movesDue`): a cold build writes the
 * dailies, weeklies and monthlies that let the oldest files go in the same build.
 */
export interface ArchivePlan {
  retention: RetentionConfig;
  /** The build's day in the configured zone. */
  today: string;
  /** Memories in `memories/`, not pinned, of a day past retention, in the stream's order. */
  memories: Memory[];
  /** Home paths of dailies and weeklies past retention, there now or written by this build, in path order. */
  summaries: string[];
}

/** What to move, as of `today` (the build's day in the configured zone), as the stream stands. Pure. */
export function planArchive(stream: StreamState, retention: RetentionConfig, today: string): ArchiveMove[] {
  return movesDue(archiveCandidates(stream, retention, today), stream);
}

/** What may move past retention (`ArchivePlan`); `written`: the summaries this build writes, by tier and period. Pure. */
export function archiveCandidates(
  stream: StreamState,
  retention: RetentionConfig,
  today: string,
  written: readonly { tier: CalendarTier; period: string }[] = [],
): ArchivePlan {
  const cutoff = addDays(today, -retention.memories_days);
  const memoriesPrefix = `${vaultPaths.memoriesDir(stream.name)}/`;
  const memories = stream.memories.filter(
    (memory) =>
      memory.location === 'memories' && memory.importance !== 'pinned' && memory.day < cutoff && memory.path.startsWith(memoriesPrefix),
  );
  const past = pastRetention(retention, today);
  const summaries = new Set<string>();
  for (const [home, current] of summariesAtHome(stream.summaries, stream.name)) {
    // Archived already, or misplaced: left where they are.
    if (current.path === home && current.meta.stream === stream.name && past(current.meta.tier, current.meta.period)) summaries.add(home);
  }
  for (const { tier, period } of written) if (past(tier, period)) summaries.add(vaultPaths.summary(stream.name, tier, period));
  return { retention, today, memories, summaries: [...summaries].sort() };
}

/** Whether a summary of `tier` for `period` is past retention: it ended before its tier's cutoff (only archived tiers). */
function pastRetention(retention: RetentionConfig, today: string): (tier: string, period: string) => boolean {
  // The finest tier keeps `daily_days` days; the other archived tier (weekly) `weekly_weeks` weeks.
  const dailyCutoff = addDays(today, -retention.daily_days);
  const weeklyCutoff = addDays(today, -7 * retention.weekly_weeks);
  return (tier, period) => {
    if (!ARCHIVED.has(tier)) return false;
    return calendarTier(tier as CalendarTier).rangeOf(period).end < (tier === FINEST_TIER ? dailyCutoff : weeklyCutoff);
  };
}

const ARCHIVED: ReadonlySet<string> = new Set(ARCHIVED_TIERS);

/** The planned moves (`ArchivePlan`) the tiers above hold now, as the stream stands. Pure. */
export function movesDue(plan: ArchivePlan, stream: StreamState): ArchiveMove[] {
  const pyramid = pyramidOf(stream);
  const wanted = [...memoryMoves(stream.name, plan.memories, pyramid), ...summaryMoves(stream.name, plan, pyramid)];
  if (wanted.length === 0) return [];
  // Every path of the stream, gathered only when something moves: most builds move nothing (a busy day's 100,000 paths cost ~0.1 s).
  const taken = new Set<string>([...stream.memories.map((m) => m.path), ...[...stream.summaries.values()].map((s) => s.path)]);
  const moves: ArchiveMove[] = [];
  for (const move of wanted) {
    if (taken.has(move.to)) continue; // never overwrite: leave it where it is
    taken.add(move.to);
    moves.push(move);
  }
  return moves;
}

/** What the summaries of a stream hold: which pass the "held by the tiers above" test for archiving. */
interface Pyramid {
  /** The summaries at their home paths (not archived), by path. */
  homes: ReadonlyMap<string, Summary>;
  /** The summary at home of a tier and period. */
  summary: (tier: CalendarTier, period: string) => Summary | undefined;
  /** Whether `parent` lists `ref` (same id and content hash). */
  lists: (parent: Summary | undefined, ref: SourceRef) => boolean;
  /**
   * Whether each summary above `held` (of `tier`, for `period`) lists the one below it, up to the last tier with a
   * period per file: the weekly and monthly above a daily, the monthly above a weekly (the tier table, time/tiers.ts).
   */
  heldAbove: (held: Summary | undefined, tier: CalendarTier, period: string) => boolean;
}

function pyramidOf(stream: StreamState): Pyramid {
  const homes = summariesAtHome(stream.summaries, stream.name);
  const summary = (tier: CalendarTier, period: string): Summary | undefined => homes.get(vaultPaths.summary(stream.name, tier, period));
  // A very busy day's daily holds its sources' count and hash, not the list: the day's memories, if they hash to it.
  // Each summary's list is resolved (and hashed) once: a day of 9,300 memories asks its daily 9,300 times.
  let byDay: Map<string, SourceRef[]> | undefined;
  const listed = new Map<Summary, Set<string>>();
  const lists = (parent: Summary | undefined, ref: SourceRef): boolean => {
    if (!parent) return false;
    let keys = listed.get(parent);
    if (!keys) {
      const sources = listedSources(parent.meta, () => (byDay ??= dailySourcesByDay(stream.memories)).get(parent.meta.period));
      keys = new Set((sources ?? []).map((s) => `${s.id}\n${s.sha256}`));
      listed.set(parent, keys);
    }
    return keys.has(`${ref.id}\n${ref.sha256}`);
  };
  const heldAbove = (held: Summary | undefined, tier: CalendarTier, period: string): boolean => {
    let child = held;
    let childPeriod = period;
    let childTier = tier;
    for (let above = coarserTier(tier); above && !isSingleSummaryTier(above); above = coarserTier(above)) {
      if (!child) return false;
      const abovePeriod = calendarTier(above).periodOf(calendarTier(childTier).rangeOf(childPeriod).start);
      const parent = summary(above, abovePeriod);
      if (!lists(parent, sourceRefOf(child))) return false;
      [child, childPeriod, childTier] = [parent, abovePeriod, above];
    }
    return child !== undefined;
  };
  return { homes, summary, lists, heldAbove };
}

/** The planned memories that their daily lists and the tiers above hold. */
function memoryMoves(stream: string, memories: readonly Memory[], { summary, lists, heldAbove }: Pyramid): ArchiveMove[] {
  const moves: ArchiveMove[] = [];
  const memoriesPrefix = `${vaultPaths.memoriesDir(stream)}/`;
  for (const memory of memories) {
    const daily = summary('daily', memory.day);
    if (!lists(daily, { id: memory.id, sha256: memory.sha256 }) || !heldAbove(daily, FINEST_TIER, memory.day)) continue;
    const quarter = quarterOf(memory.day);
    moves.push({
      stream,
      kind: 'memory',
      id: memory.id,
      from: memory.path,
      to: `${vaultPaths.archiveDir(stream)}/${quarter}/${memory.path.slice(memoriesPrefix.length)}`,
      quarter,
    });
  }
  return moves;
}

/** The planned dailies and weeklies at home, past their retention, that the tiers above hold; in path order. */
function summaryMoves(stream: string, plan: ArchivePlan, { homes, heldAbove }: Pyramid): ArchiveMove[] {
  const moves: ArchiveMove[] = [];
  const past = pastRetention(plan.retention, plan.today);
  for (const home of plan.summaries) {
    const current = homes.get(home);
    if (!current || current.path !== home || current.meta.stream !== stream) continue; // not written, archived, or misplaced
    const { tier, period } = current.meta;
    if (!past(tier, period) || !heldAbove(current, tier as CalendarTier, period)) continue;
    const kind = tier as ArchivedTier;
    // A weekly goes to the quarter of its Thursday.
    const quarter = kind === 'daily' ? quarterOf(period) : quarterOf(addDays(weekRange(period).start, 3));
    moves.push({ stream, kind, id: period, from: current.path, to: archivedSummaryPath(stream, quarter, kind, period), quarter });
  }
  return moves;
}

/** `<stream>/archive/<quarter>/<tier>/<period>.md`. */
export function archivedSummaryPath(stream: string, quarter: string, tier: ArchivedTier, period: string): string {
  return `${vaultPaths.archiveDir(stream)}/${quarter}/${calendarTier(tier).folder}/${period}.md`;
}

/** Where a build's archive moves go: its writer (writer.ts), its parse cache and its content store. */
export interface ArchiveTarget {
  writer: Writer;
  cache: ParseCache;
  /** A dry run's moves leave the files where they are: their bodies are kept here first, for the stages after. */
  content: ContentStore;
}

/**
 * Performs the moves (renames) and updates `stream` to match: moved memories
 * get their new path and location, moved summaries their new path (and key).
 * Like the write stage's bookkeeping, this keeps the build's working state
 * equal to the disk. A move whose target already exists, or whose source is
 * gone, is skipped. The parse cache learns the new paths, so the next build
 * does not parse the moved files again. Returns the moves made.
 */
export function applyArchive({ writer, cache, content }: ArchiveTarget, stream: StreamState, moves: readonly ArchiveMove[]): ArchiveMove[] {
  const moved: ArchiveMove[] = [];
  const memoryIndex = new Map(stream.memories.map((memory, i) => [memory.path, i]));
  for (const move of moves) {
    if (writer.recording) keepBody(stream, move, memoryIndex, content);
    if (!writer.move(move.from, move.to)) continue;
    moved.push(move);
    crashPoint('archive');
    const entry = cache.get(move.from);
    const stat = writer.stat(move.to)!;
    let result: CachedResult;
    if (move.kind === 'memory') {
      const i = memoryIndex.get(move.from);
      if (i === undefined) continue;
      const next: Memory = { ...stream.memories[i]!, path: move.to, location: 'archive' };
      stream.memories[i] = next;
      result = { type: 'memory', memory: next };
    } else {
      const current = stream.summaries.get(move.from);
      if (!current) continue;
      const next: Summary = { ...current, path: move.to };
      stream.summaries.delete(move.from);
      stream.summaries.set(move.to, next);
      result = { type: 'summary', summary: next };
    }
    // The same content under its new path: its entry moves with it, headings included (the committed record writes them).
    const sha256 = result.type === 'memory' ? result.memory.sha256 : result.summary.sha256;
    if (entry?.sha256 === sha256) {
      const headings = entry.headings ? { headings: entry.headings } : {};
      cache.set(move.to, { ...headings, size: stat.size, mtimeMs: stat.mtimeMs, sha256, result });
    }
  }
  return moved;
}

/** A dry run: the body of what moves, read at its old path while the file is still there (the stages after read it by hash). */
function keepBody(stream: StreamState, move: ArchiveMove, memoryIndex: ReadonlyMap<string, number>, content: ContentStore): void {
  const i = memoryIndex.get(move.from);
  const memory = i === undefined ? undefined : stream.memories[i];
  const summary = stream.summaries.get(move.from);
  if (move.kind === 'memory' && memory) content.remember(memory.sha256, content.memory(memory));
  else if (move.kind !== 'memory' && summary) content.remember(summary.sha256, content.summary(summary));
}
