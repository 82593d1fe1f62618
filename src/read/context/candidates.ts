import { DateTime } from 'luxon';
import { leftOutOf } from '../../maintain/left-out.js';
import { contentWords } from '../../text/terms.js';
import { todayIn } from '../../time/periods.js';
import { type CalendarTier, calendarTier, coarserTier, isCalendarTier, isSingleSummaryTier, PERIOD_TIERS } from '../../time/tiers.js';
import type { Memory, StreamState, Summary } from '../../vault/model.js';
import { vaultPaths } from '../../vault/paths.js';
import { parseQuery, runSearch } from '../../search/query.js';
import { processTerm, tokenize, type SearchIndex } from '../../search/index.js';
import { matchPlan } from '../../search/match.js';
import { summaryBody, type ReadVault } from '../vault.js';
import type { TierName } from './budget.js';
import type { Candidate, CriticalSource, Version } from './candidate.js';
import { factVersions, openContradictions } from './facts.js';
import { signalQueries, type Signals } from './signals.js';
import { keyOf, RELEVANT_GROUPS, relevantFor, roundRobinBy } from './relevant.js';
import { streamView, type StreamView } from './stream-view.js';
import { memoryText, topicsOf, type IndexTopic } from './warm.js';

/**
 * The candidates of each tier, best first, before any budget: what the
 * critical, relevant, background and index tiers would say with unlimited
 * room. Each item names its source (a path) and may offer coarser versions
 * of itself (a memory's daily, then its weekly) for when it does not fit.
 *
 * What a query-less context draws on here is also listed in hooks/start-parts.ts (`neededFiles`), so the
 * session-start hook can load only those files: a change to that here changes it there too
 * (test/hooks/start-parts.test.ts compares the partial and the whole load on random vaults).
 */

export type { Candidate, CriticalSource, Part, Version } from './candidate.js';

export interface CandidateInput {
  vault: ReadVault;
  stream: StreamState;
  signals: Signals;
  now: Date;
  index: SearchIndex;
  /** Unresolved contradictions (default: those between the stream's facts). */
  contradictions?: CriticalSource;
}

/** Queries remembered per stream view; past this many they start again. */
const MAX_REMEMBERED = 2_000;

const FIX_WORDS = /\b(fix|fixed|fixes|fixing|resolved|resolves|solved|workaround|root cause)\b/i;

export function tierCandidates(input: CandidateInput): Record<TierName, Candidate[]> {
  const sources = candidateSources(input);
  // Facts in force, compressed: those the signals name are critical, the others background.
  const facts = factVersions(
    sources.stream,
    todayIn(input.now, input.vault.config.timezone),
    sources.queries.map((q) => q.text),
  );
  // In this order: an item taken by an earlier tier is no candidate of a later one.
  const critical = criticalCandidates(sources, input, facts.critical);
  const relevant = relevantCandidates(sources, input.index);
  const background = backgroundCandidates(sources, facts.background);
  const named = namesSignals(sources.queries.map((q) => q.text));
  const index = indexCandidates(input.vault, sources.stream.name).filter((c) => named(c.versions[0]!.label));
  return { critical, relevant, background, index };
}

/** What the tiers draw on: the stream's view, versions of its memories and summaries, the signals' queries and their search. */
interface CandidateSources {
  vault: ReadVault;
  view: StreamView;
  stream: StreamView['stream'];
  byPath: StreamView['byPath'];
  queries: ReturnType<typeof signalQueries>;
  memoryVersion: (m: Memory) => Version;
  summaryVersion: (s: Summary) => Version;
  summaryAt: (p: string) => Summary | undefined;
  /** A memory, else its daily, else its weekly (what exists of them). */
  ladder: (p: string) => Version[];
  /** A memory's or summary's text, from the loaded vault. */
  bodyOf: (p: string) => string | undefined;
  /** The candidate of the first version not yet taken by any tier (marking it taken), else undefined. */
  take: (tier: TierName, versions: Version[], must?: boolean) => Candidate | undefined;
  /** Sources (and relevant keys) already taken, shared by the tiers. */
  seen: Set<string>;
  searchHits: (text: string, limit: number) => { path: string; score: number }[];
  search: (text: string, limit: number) => string[];
}

function candidateSources(input: CandidateInput): CandidateSources {
  const { vault } = input;
  // Copies marked `duplicate_of` are no candidates. Forgotten memories are never pushed (pinned, decisions and conventions
  // offered without a query), but a search hit on one is a retrieval: it is served, and the usage it records brings the
  // memory back. Leaving hits out would forget exactly what a query needs. Both stay in summaries, zoom and search.
  const leftOut = leftOutOf(vault.root, vault.vaultDir, vault.config, input.stream, input.now);
  const view = streamView(input.stream, leftOut, vault.config.timezone);
  const { stream, byPath } = view;
  // Relative dates are resolved against the memory's day, as the summaries do (`yesterday (7 May 2023)`).
  const memoryVersion = (m: Memory): Version => ({
    source: m.path,
    label: `${whenOf(m)} ${m.title ?? m.id} (${m.kind}${m.tags.length > 0 ? `; ${m.tags.join(', ')}` : ''})`,
    text: memoryText(vault, m),
  });
  const summaryVersion = (s: Summary): Version => ({
    source: s.path,
    label: `${s.meta.tier} ${s.meta.period} (${s.meta.start} to ${s.meta.end})`,
    text: summaryBody(vault, s),
  });
  const summaryAt = (p: string): Summary | undefined => stream.summaries.get(p);
  const seen = new Set<string>();
  const take = (tier: TierName, versions: Version[], must = false): Candidate | undefined => {
    if (versions.length === 0 || seen.has(versions[0]!.source)) return undefined;
    seen.add(versions[0]!.source);
    return { tier, versions, ...(must ? { must } : {}) };
  };
  const bodyOf = (p: string): string | undefined => {
    const memory = byPath.get(p);
    if (memory) return memoryText(vault, memory);
    const summary = summaryAt(p);
    return summary ? summaryBody(vault, summary) : undefined;
  };
  const searchHits = rememberedSearch(view, input.index, bodyOf);
  return {
    vault,
    view,
    stream,
    byPath,
    queries: signalQueries(input.signals),
    memoryVersion,
    summaryVersion,
    summaryAt,
    ladder: (p) => ladderOf(p, view, memoryVersion, summaryVersion),
    bodyOf,
    take,
    seen,
    searchHits,
    search: (text, limit) => searchHits(text, limit).map((hit) => hit.path),
  };
}

/** A memory, else its daily, else its weekly (what exists of them). */
function ladderOf(
  p: string,
  { stream, byPath }: StreamView,
  memoryVersion: (m: Memory) => Version,
  summaryVersion: (s: Summary) => Version,
): Version[] {
  const summaryAt = (path: string): Summary | undefined => stream.summaries.get(path);
  const memory = byPath.get(p);
  const summary = summaryAt(p);
  const out: Version[] = [];
  const push = (s: Summary | undefined): void => void (s && out.push(summaryVersion(s)));
  if (memory) {
    out.push(memoryVersion(memory));
    // The two finest summaries of the memory's day (its daily and weekly: the tier table, time/tiers.ts).
    for (const tier of PERIOD_TIERS.slice(0, 2))
      push(summaryAt(vaultPaths.summary(stream.name, tier, calendarTier(tier).periodOf(memory.day))));
  } else if (summary) {
    out.push(summaryVersion(summary));
    // The summary one tier up, if it has a period per file (a daily's weekly, a weekly's monthly).
    const { tier, period } = summary.meta;
    const above = isCalendarTier(tier) ? coarserTier(tier) : undefined;
    if (above && !isSingleSummaryTier(above)) {
      const abovePeriod = calendarTier(above).periodOf(calendarTier(tier as CalendarTier).rangeOf(period).start);
      push(summaryAt(vaultPaths.summary(stream.name, above, abovePeriod)));
    }
  }
  return out;
}

/**
 * Search hits (paths and scores, no snippets) for a text in the view's
 * stream. A document's text is needed only to check a quoted phrase (from
 * the loaded vault, not the disk). Remembered per view while the index is
 * unchanged: a warm process asks the same file or branch signal call after call.
 */
function rememberedSearch(
  view: StreamView,
  index: SearchIndex,
  bodyOf: (p: string) => string | undefined,
): (text: string, limit: number) => { path: string; score: number }[] {
  const { stream, byPath } = view;
  const generation = index.generation();
  if (view.hitsOf?.index !== index || view.hitsOf.generation !== generation || view.hits.size >= MAX_REMEMBERED) {
    view.hits.clear();
    view.hitsOf = { index, generation };
  }
  return (text, limit) => {
    const key = `${limit}\u0000${text}`;
    const known = view.hits.get(key);
    if (known) return known;
    const query = parseQuery(text);
    const textOf = query.phrases.length > 0 ? bodyOf : (p: string) => (byPath.has(p) || stream.summaries.has(p) ? '' : undefined);
    const hits = runSearch(index, query, { stream: stream.name, limit }, textOf).flatMap((group) => [
      { path: group.path, score: group.score },
      ...group.more.map((hit) => ({ path: hit.path, score: hit.score })),
    ]);
    view.hits.set(key, hits);
    return hits;
  };
}

const pushIf = (list: Candidate[], c: Candidate | undefined): void => void (c && list.push(c));

/** Critical: unresolved contradictions, pinned memories, facts the signals name, decisions relevant to the signals (else the newest), errors of the last 24 hours and what fixed them. */
function criticalCandidates(sources: CandidateSources, input: CandidateInput, facts: Version | undefined): Candidate[] {
  const { vault, view, stream, byPath, queries, memoryVersion, take, search } = sources;
  const critical: Candidate[] = [];
  // Open contradictions first (by default the stream's own, from its facts): neither value may be taken as settled.
  // Not marked as seen, so the memories they point at stay candidates themselves.
  for (const v of (input.contradictions ?? openContradictions)(vault, stream)) critical.push({ tier: 'critical', versions: [v] });
  for (const m of view.pinned) pushIf(critical, take('critical', [memoryVersion(m)], true));
  if (facts) critical.push({ tier: 'critical', versions: [facts] });
  const decisions = view.decisions;
  const relevantDecisions =
    queries.length > 0
      ? roundRobin(queries.map((q) => search(`${q.text} kind:decision`, 3)))
      : decisions
          .slice(-3)
          .reverse()
          .map((m) => m.path);
  for (const p of relevantDecisions) if (byPath.has(p)) pushIf(critical, take('critical', [memoryVersion(byPath.get(p)!)]));
  for (const error of recentErrors(view.errors, input.now)) {
    pushIf(critical, take('critical', [memoryVersion(error)]));
    const fix = fixFor(vault, stream.memories, error);
    if (fix)
      pushIf(
        critical,
        take('critical', [{ ...memoryVersion(fix), label: `${memoryVersion(fix).label}, fix for ${error.title ?? error.id}` }]),
      );
  }
  return critical;
}

/** Relevant: search hits for each signal, taken in turn so every signal is heard, each at the finest level that fits. */
function relevantCandidates(sources: CandidateSources, index: SearchIndex): Candidate[] {
  const { queries, searchHits, byPath, bodyOf, ladder, memoryVersion, seen } = sources;
  const relevant: Candidate[] = [];
  const perSignal = queries.map((q) =>
    relevantFor({
      query: q.text,
      // The search's own terms (stems, prefixes, typo alternatives from the index's vocabulary) rank the passages too.
      terms: matchPlan(parseQuery(q.text).text, [], index),
      hits: searchHits(q.text, RELEVANT_GROUPS),
      byPath,
      bodyOf,
      ladder,
      memoryVersion,
    }),
  );
  for (const c of roundRobinBy(perSignal, (c) => keyOf(c.versions[0]!))) {
    const first = c.versions[0]!;
    if (seen.has(first.source) || seen.has(keyOf(first))) continue;
    seen.add(keyOf(first));
    relevant.push(c);
  }
  return relevant;
}

/**
 * Background: facts in force, conventions, the long-term summary, the latest
 * monthly. With signals, a summary earns room only when the signals' search
 * found it: the same summary for every question otherwise takes a quarter of
 * a small budget and answers none of them.
 */
function backgroundCandidates(sources: CandidateSources, facts: Version | undefined): Candidate[] {
  const { view, stream, queries, memoryVersion, summaryVersion, summaryAt, take, search } = sources;
  const found = queries.length === 0 ? undefined : new Set(queries.flatMap((q) => search(q.text, RELEVANT_GROUPS)));
  const background: Candidate[] = [];
  const pushFound = (c: Candidate | undefined): void => void (c && (!found || found.has(c.versions[0]!.source)) && background.push(c));
  // Facts in force (one compact line each) and conventions (standing instructions) are always offered: the state of
  // things, not a history.
  if (facts) background.push({ tier: 'background', versions: [facts] });
  for (const m of view.conventions) pushIf(background, take('background', [memoryVersion(m)]));
  const longterm = summaryAt(vaultPaths.summary(stream.name, 'longterm', ''));
  if (longterm) pushFound(take('background', [summaryVersion(longterm)]));
  const monthly = view.latestMonthly;
  if (monthly) pushFound(take('background', [summaryVersion(monthly)]));
  return background;
}

/**
 * Whether a text names something the signals name: a stem in common (`deploys` names `deploying`). Without signals
 * everything counts: a query-less context is the overview.
 */
function namesSignals(signals: readonly string[]): (text: string) => boolean {
  if (signals.length === 0) return () => true;
  const wanted = new Set(signals.flatMap((text) => tokenize(text).map(processTerm)));
  return (text) => tokenize(text).some((word) => wanted.has(processTerm(word)));
}

/** Index: one line per topic term, with the periods it is a topic of (newest first) — "auth (2026-02, 2026-W07)". */
function indexCandidates(vault: ReadVault, stream: string): Candidate[] {
  const topics = topicsOf(vault, stream);
  // The same topics (index.json unchanged) give the same line: worked out once per read of the file.
  let out = indexLines.get(topics);
  if (!out) {
    out = indexLinesOf(topics);
    indexLines.set(topics, out);
  }
  return out;
}

const indexLines = new WeakMap<readonly IndexTopic[], Candidate[]>();

function indexLinesOf(topics: readonly IndexTopic[]): Candidate[] {
  const seen = new Map<string, { periods: string[]; path: string; first: number }>();
  const newestFirst = [...topics]
    .filter((t) => Array.isArray(t.terms))
    .sort((a, b) => (a.period < b.period ? 1 : a.period > b.period ? -1 : 0));
  for (const topic of newestFirst) {
    for (const term of topic.terms) {
      // Period names are no topic (`2026-w45`).
      if (typeof term !== 'string' || /^\d{4}-[wq]?\d{1,2}$/i.test(term)) continue;
      const entry = seen.get(term) ?? { periods: [], path: topic.path, first: seen.size };
      entry.periods.push(topic.period);
      seen.set(term, entry);
    }
  }
  // Terms that recur over several periods first (a lasting topic), then newest first.
  const ranked = [...seen].sort((a, b) => b[1].periods.length - a[1].periods.length || a[1].first - b[1].first);
  return ranked.map(([term, entry]) => ({
    tier: 'index' as const,
    versions: [{ source: entry.path, label: term, text: `${term} (${entry.periods.slice(0, 3).join(', ')})` }],
  }));
}

/** `Monday 8 May 2023 13:56`: the date in words and the local time (the path beside it in the label holds the file; a model reads the ISO day `memvault zoom` takes from the words). */
export function whenOf(m: Memory): string {
  const time = /T\d/.test(m.date) ? ` ${String(Math.floor(m.minute / 60)).padStart(2, '0')}:${String(m.minute % 60).padStart(2, '0')}` : '';
  return `${dayInWords(m.day)}${time}`;
}

const inWords = new Map<string, string>();
function dayInWords(day: string): string {
  let words = inWords.get(day);
  if (words === undefined) {
    words = DateTime.fromISO(day, { zone: 'UTC', locale: 'en' }).toFormat('cccc d LLLL yyyy');
    if (inWords.size >= 10_000) inWords.clear();
    inWords.set(day, words);
  }
  return words;
}

/** Errors of the 24 hours up to `now`, in the stream's order. */
function recentErrors(errors: StreamView['errors'], now: Date): Memory[] {
  const end = now.getTime();
  const start = end - 24 * 3_600_000;
  return errors.filter(({ at }) => at >= start && at <= end).map(({ memory }) => memory);
}

/** The first later memory within three days that talks of a fix and shares a content word with the error. */
function fixFor(vault: ReadVault, memories: readonly Memory[], error: Memory): Memory | undefined {
  const words = new Set(contentWords(`${error.title ?? ''} ${memoryText(vault, error)}`));
  const limit = DateTime.fromISO(error.day).plus({ days: 3 }).toISODate()!;
  for (const m of memories) {
    if (m === error || m.day < error.day || m.day > limit || (m.day === error.day && m.minute <= error.minute)) continue;
    const body = memoryText(vault, m);
    if (FIX_WORDS.test(body) && contentWords(`${m.title ?? ''} ${body}`).some((w) => words.has(w))) return m;
  }
  return undefined;
}

/** Interleaves ranked lists (first of each, then second of each, …), dropping repeats. */
export function roundRobin(lists: readonly string[][]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; lists.some((list) => i < list.length); i++) {
    for (const list of lists) {
      const item = list[i];
      if (item !== undefined && !seen.has(item)) {
        seen.add(item);
        out.push(item);
      }
    }
  }
  return out;
}
