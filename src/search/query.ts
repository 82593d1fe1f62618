import type { MemoryCitations } from '../vault/citation-model.js';
// The tier table's calendar-free columns: a search starts without loading luxon (test/read/start-fast.test.ts).
import { ALL_TIER_NAMES, CALENDAR_TIER_FIELDS } from '../time/tier-names.js';
import type { Tier } from '../time/tiers.js';
import { UserError } from '../util/errors.js';
import type { SearchDoc } from './documents.js';
import type { DocFilter, RankedDoc, SearchIndex } from './index.js';
import { matchPlan } from './match.js';
import { fuseResults } from './fuse.js';
import { snippetOf } from './snippet.js';
import { namedDays } from './named-days.js';

/**
 * Search queries: free words, quoted phrases and field filters
 * (`tag:auth kind:decision stream:main tier:weekly since:2026-02 until:2026-03`),
 * run against the BM25 index; hits of one day are grouped so a busy day does
 * not fill the list.
 */

/** What `tier:` filters on: memories or a summary tier (the tier table, time/tiers.ts). */
export const TIERS: readonly ['memories', ...Tier[]] = ['memories', ...ALL_TIER_NAMES];
const FIELDS = ['tag', 'kind', 'stream', 'tier', 'since', 'until'] as const;
type Field = (typeof FIELDS)[number];

export interface ParsedQuery {
  /** Words for BM25 (phrase words included). */
  text: string;
  /** Quoted phrases: a hit must contain each (case and spacing ignored). */
  phrases: string[];
  filters: Record<Field, string[]>;
}

/**
 * Bounds of one query, checked before any SQL is built: each filter is one condition of the statement (a `tag:` one
 * nested `EXISTS`), and SQLite refuses a statement past 1,000 levels ("Expression tree is too large"); the length
 * bounds the words and phrases (each a term of the FTS5 expression and a vocabulary lookup).
 */
export const MAX_FILTERS = 100;
export const MAX_QUERY_CHARS = 10_000;

/**
 * Splits a query into words, phrases and filters. Pure. A query longer than
 * `MAX_QUERY_CHARS` or with more than `MAX_FILTERS` filters is a user error
 * (`search/too-large`), before the index is touched.
 *
 * @example
 *   parseQuery('"server sessions" postgres tag:auth') // { text: 'server sessions postgres', phrases: ['server sessions'], filters: { tag: ['auth'], … } }
 */
export function parseQuery(query: string): ParsedQuery {
  if (query.length > MAX_QUERY_CHARS)
    throw new UserError('search/too-large', `the query is ${query.length.toLocaleString('en-US')} characters long`, {
      limit: `${MAX_QUERY_CHARS.toLocaleString('en-US')} characters`,
    });
  const filters = Object.fromEntries(FIELDS.map((f) => [f, [] as string[]])) as Record<Field, string[]>;
  const words: string[] = [];
  const phrases: string[] = [];
  for (const match of query.matchAll(/(\w+):(?:"([^"]*)"|(\S+))|"([^"]*)"?|(\S+)/g)) {
    const [, field, quotedValue, value, phrase, word] = match;
    if (field !== undefined && (FIELDS as readonly string[]).includes(field.toLowerCase()))
      filters[field.toLowerCase() as Field].push((quotedValue ?? value)!);
    else if (field !== undefined) words.push(match[0]);
    else if (phrase !== undefined) {
      const clean = phrase.trim().replace(/\s+/g, ' ');
      if (clean) {
        phrases.push(clean);
        words.push(clean);
      }
    } else if (word !== undefined) words.push(word);
  }
  const count = Object.values(filters).reduce((n, values) => n + values.length, 0);
  if (count > MAX_FILTERS)
    throw new UserError(
      'search/too-large',
      `the query has ${count.toLocaleString('en-US')} filters (tag:, kind:, stream:, tier:, since:, until:)`,
      {
        limit: `${MAX_FILTERS} filters`,
      },
    );
  return { text: words.join(' '), phrases, filters };
}

export interface SearchOptions {
  stream?: string;
  /** A tier or `all` (default). */
  tier?: string;
  /** First and last day (inclusive) a hit may be about. */
  since?: string;
  until?: string;
  /** Groups (days) to return (default 10). */
  limit?: number;
  /** Ids ranked by embedding similarity to the query, best first: fused with the BM25 ranking (reciprocal rank fusion, fuse.ts). */
  semantic?: readonly string[];
  /** Multiplies a document's score (by vault path): the small boost of used items (`usageBoost` in src/usage/boost.ts). */
  boost?: (docPath: string) => number;
}

export interface SearchHit {
  path: string;
  /** 1-based line of the file where the snippet is. */
  line: number;
  stream: string;
  tier: string;
  kind: string;
  /** Day of a memory, period of a summary: `memvault zoom <period>` shows the detail. */
  period: string;
  title: string;
  /** The best line, matched words marked `**word**`. */
  snippet: string;
  score: number;
  /** A memory that cites paths, commits or branches: how they stood at the last check (src/citations/). */
  citations?: MemoryCitations;
}

export interface SearchGroup extends SearchHit {
  /** Other hits of the same stream and day, best first. */
  more: { path: string; line: number; score: number; title: string }[];
}

/**
 * Score factor of a document by tier: a weekly, monthly or long-term summary restates its days in fewer words, so BM25
 * favours it (short and dense with the query's words) over the memory that holds the detail, and without a prior a
 * third of the first ten groups were such summaries, each standing for no one source. A coarse summary still comes
 * first when it matches four times better than any memory. Memories and daily summaries share one group per day.
 */
export const TIER_PRIOR: Readonly<Record<string, number>> = Object.fromEntries([
  ...CALENDAR_TIER_FIELDS.filter((row) => row.finer !== undefined).map((row) => [row.name, 0.25]),
  ['waterfall-longterm', 0.25],
]);

export function withTierPrior(results: readonly RankedDoc[]): RankedDoc[] {
  return results.map((r) => ({ ...r, score: r.score * (TIER_PRIOR[r.tier] ?? 1) })).sort((a, b) => b.score - a.score); // stable: ties keep the index's order (memories first, then by path)
}

/**
 * A query that names a day (`on 31 Dec 2023`, named-days.ts): that day's memories and daily summary score as the
 * best document does, so the day asked about is among the first groups even when its words are few. Others keep
 * their scores (the context weighs passages by them).
 */
export function withNamedDays(results: readonly RankedDoc[], days: readonly string[]): RankedDoc[] {
  const best = results[0]?.score;
  if (days.length === 0 || best === undefined) return [...results];
  const named = (r: RankedDoc): boolean => (r.tier === 'memories' || r.tier === 'daily') && days.includes(r.period);
  return results.map((r) => (named(r) ? { ...r, score: Math.max(r.score, best) } : r)).sort((a, b) => b.score - a.score); // stable
}

/** Ranked documents read per group asked for: a busy day's hits share one group, and the usage boost reorders within them. */
const POOL_PER_GROUP = 40;
const MIN_POOL = 200;

/**
 * Runs a query. `readFile(path)` returns a document's file as it is now
 * (for snippets, line numbers and phrases), or undefined when it is gone.
 */
export function runSearch(
  index: SearchIndex,
  query: ParsedQuery,
  options: SearchOptions,
  readFile: (vaultPath: string) => string | undefined,
): SearchGroup[] {
  const filters = { ...query.filters };
  if (options.stream) filters.stream = [...filters.stream, options.stream];
  if (options.tier && options.tier !== 'all') filters.tier = [...filters.tier, options.tier];
  for (const tier of filters.tier)
    if (!(TIERS as readonly string[]).includes(tier))
      throw new UserError('search/tier', `tier \`${tier}\` is not one of ${TIERS.join(', ')}`);
  const since = [options.since, ...filters.since]
    .filter((d): d is string => d !== undefined)
    .sort()
    .pop();
  const until = [options.until, ...filters.until].filter((d): d is string => d !== undefined).sort()[0];
  const lower = (values: string[]): string[] => values.map((v) => v.toLowerCase());
  const docFilter: DocFilter = {
    streams: filters.stream,
    tiers: filters.tier,
    kinds: lower(filters.kind),
    tags: lower(filters.tag),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  };
  // The same filter in code, for documents only the embeddings found.
  const keep = (doc: SearchDoc): boolean =>
    (docFilter.streams.length === 0 || docFilter.streams.includes(doc.stream)) &&
    (docFilter.tiers.length === 0 || docFilter.tiers.includes(doc.tier)) &&
    (docFilter.kinds.length === 0 || docFilter.kinds.includes(doc.kind.toLowerCase())) &&
    docFilter.tags.every((tag) => doc.tags.some((t) => t.toLowerCase() === tag)) &&
    (since === undefined || doc.end >= since) &&
    (until === undefined || doc.start <= until);
  const limit = options.limit ?? 10;
  const pool = Math.max(MIN_POOL, limit * POOL_PER_GROUP);
  const hasWords = query.text.trim().length > 0;
  const plan = hasWords ? matchPlan(query.text, query.phrases, index) : undefined;
  let results: RankedDoc[] = plan ? index.rank(plan, docFilter, pool) : index.newest(docFilter, pool);
  const boost = options.boost;
  if (plan && boost)
    results = results.map((r) => ({ ...r, score: r.score * boost(r.id) })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  if (plan) results = withNamedDays(withTierPrior(results), namedDays(query.text));
  const ranked =
    options.semantic && plan ? (fuseResults(results, options.semantic, (id) => index.stored(id), keep) as RankedDoc[]) : results;
  const prefixes = plan?.prefixes ?? [];
  const groups = new Map<string, SearchGroup>();
  for (const doc of ranked) {
    const key = doc.tier === 'memories' || doc.tier === 'daily' ? `${doc.stream}\u0000${doc.period}` : doc.id;
    const group = groups.get(key);
    if (!group && groups.size >= limit) continue;
    const text = readFile(doc.id);
    if (text === undefined) continue;
    const snippet = snippetOf(text, new Set(doc.terms), query.phrases, doc.terms.length > 0 ? prefixes : []);
    if (!snippet) continue; // a quoted phrase it does not contain
    const score = Math.round(doc.score * 1000) / 1000;
    const head = {
      path: doc.id,
      line: snippet.line,
      stream: doc.stream,
      tier: doc.tier,
      kind: doc.kind,
      period: doc.period,
      title: doc.title,
      snippet: snippet.text,
      score,
    };
    // A day's first memory leads its group before the day's daily summary: the daily repeats it, the memory is the source.
    if (group?.tier === 'daily' && doc.tier === 'memories') {
      groups.set(key, {
        ...head,
        score: group.score,
        more: [{ path: group.path, line: group.line, score: group.score, title: group.title }, ...group.more],
      });
    } else if (group) group.more.push({ path: doc.id, line: snippet.line, score, title: doc.title });
    else groups.set(key, { ...head, more: [] });
  }
  return [...groups.values()];
}
