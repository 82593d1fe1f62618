import { DateTime } from 'luxon';
import type { LeftOut } from '../../maintain/left-out.js';
import { isKindOrTag, type Memory, type StreamState, type Summary } from '../../vault/model.js';
import { addDays } from '../../time/periods.js';

/**
 * What context assembly works out from a stream's memories before any
 * signal: the memories it may push (forgotten ones and copies left out), the
 * pinned, the decisions, the conventions, the errors with their instants, the
 * latest monthly. At 20,000 memories that is several passes and a `Map` of
 * every path, so a long-lived process keeps it per stream until the loaded
 * memories, the summaries, what is left out (usage, the day) or the time zone
 * change: each is compared by identity, and a reload makes new arrays.
 */
export interface StreamView {
  /** The stream without the memories never pushed (forgotten, copies). */
  stream: StreamState;
  /** Memories a search may find (all but copies), by path. */
  byPath: ReadonlyMap<string, Memory>;
  pinned: readonly Memory[];
  decisions: readonly Memory[];
  /** Memories of kind or tag `convention`, newest first. */
  conventions: readonly Memory[];
  /** Memories of kind or tag `error`, with their instant in milliseconds. */
  errors: readonly { memory: Memory; at: number }[];
  latestMonthly: Summary | undefined;
  /** Search hits by query, for this view and one state of the index (candidates.ts). */
  hits: Map<string, { path: string; score: number }[]>;
  /** The index and its generation the hits were found in. */
  hitsOf: { index: unknown; generation: string } | undefined;
}

interface Entry {
  leftOut: LeftOut;
  summaries: StreamState['summaries'];
  zone: string;
  view: StreamView;
}

const views = new WeakMap<readonly Memory[], Entry>();

/**
 * Whether two answers of `leftOutOf` leave out the same memories. A warm server records usage after every answer, and
 * a changed usage file makes `leftOutOf` answer with a new object, most often with the same memories in it.
 */
function sameLeftOut(a: LeftOut, b: LeftOut): boolean {
  if (a === b) return true;
  if (a.ids.size !== b.ids.size || a.duplicates.size !== b.duplicates.size) return false;
  for (const id of a.ids) if (!b.ids.has(id)) return false;
  for (const [id, of] of a.duplicates) if (b.duplicates.get(id) !== of) return false;
  return true;
}

/** The view of `stream` with `leftOut` applied, remembered while its inputs are the same objects. */
export function streamView(stream: StreamState, leftOut: LeftOut, zone: string): StreamView {
  const known = views.get(stream.memories);
  if (known && known.summaries === stream.summaries && known.zone === zone && sameLeftOut(known.leftOut, leftOut)) {
    known.leftOut = leftOut;
    return known.view;
  }
  const notPushed = leftOut.ids;
  const pushed = notPushed.size === 0 ? stream : { ...stream, memories: stream.memories.filter((m) => !notPushed.has(m.id)) };
  const findable = leftOut.duplicates.size === 0 ? stream.memories : stream.memories.filter((m) => !leftOut.duplicates.has(m.id));
  const view: StreamView = {
    stream: pushed,
    byPath: new Map(findable.map((m) => [m.path, m])),
    pinned: pushed.memories.filter((m) => m.importance === 'pinned'),
    decisions: pushed.memories.filter((m) => m.kind.toLowerCase() === 'decision'),
    conventions: pushed.memories.filter((m) => isKindOrTag(m, 'convention')).reverse(),
    errors: pushed.memories
      .filter((m) => isKindOrTag(m, 'error'))
      .map((memory) => ({ memory, at: DateTime.fromISO(memory.date, { zone }).toMillis() })),
    latestMonthly: [...pushed.summaries.values()]
      .filter((s) => s.meta.tier === 'monthly')
      .sort((a, b) => (a.meta.period < b.meta.period ? 1 : -1))[0],
    hits: new Map(),
    hitsOf: undefined,
  };
  views.set(stream.memories, { leftOut, summaries: stream.summaries, zone, view });
  return view;
}

/**
 * Days back from today within which a memory may be an error of the last 24 hours or its fix (`fixFor`: up to three
 * days after the error), whatever the zone or the offset of its date.
 */
const RECENT_DAYS = 7;

/** The first day whose memories a query-less context on `today` may show as recent (`queryLessMayShow`). */
export function queryLessRecentFrom(today: string): string {
  return addDays(today, -RECENT_DAYS);
}

/**
 * Whether a query-less context (the session-start hook's) may draw on `m` on its own merits: without a query a context
 * pushes only the pinned, the last decisions (counted by the callers), conventions, facts, and errors of the last 24
 * hours with their fixes (memories of the days from `recentFrom`: an older error, the most common hit of a search, is
 * no candidate either way). Keep in step with `tierCandidates` (candidates.ts): a new tier drawing on other memories
 * without a query must be counted here; hooks/start-parts.ts and `forgottenPushable` rely on it.
 */
export function queryLessMayShow(m: Memory, recentFrom: string): boolean {
  return m.importance === 'pinned' || isKindOrTag(m, 'convention') || m.facts !== undefined || m.day >= recentFrom;
}

/**
 * The ids of forgotten memories whose use would change a query-less context: forgetting takes a memory out of
 * `stream`, and a use can only bring a forgotten memory back (forgetting.ts), so usage recorded for any memory the
 * context could not show (`queryLessMayShow`, or a decision) leaves such a context as it was.
 */
export function forgottenPushable(stream: StreamState, leftOut: LeftOut, today: string): string[] {
  const forgotten = new Set(leftOut.forgotten.map((f) => f.id));
  if (forgotten.size === 0) return [];
  const recentFrom = queryLessRecentFrom(today);
  return stream.memories
    .filter((m) => forgotten.has(m.id) && (m.kind.toLowerCase() === 'decision' || queryLessMayShow(m, recentFrom)))
    .map((m) => m.id);
}
