import type { Memory } from '../../vault/model.js';
import type { Candidate, Version } from './candidate.js';
import { formatLongDate } from '../../retention/dates.js';
import { processTerm, tokenize } from '../../search/index.js';
import { namedDays } from '../../search/named-days.js';
import { rankPassages, type PassageQuery } from './passages.js';

/**
 * The relevant tier for one signal: the search's hits at the finest level
 * that fits. A memory the search found comes as its passages about the
 * signal (a window of blocks around each hit, so one long memory does not
 * take the room of five), as the whole memory when the passage is all of
 * it; a memory matched only by its title or tags comes whole (else its
 * daily, else its weekly); summaries found come after, unless they are the
 * day of a memory already quoted. Pure.
 */

/** Day groups asked of the search per signal. */
export const RELEVANT_GROUPS = 20;
/** Memories whose passages are ranked per signal. */
const PASSAGE_DOCS = 40;

export interface RelevantInput {
  query: string;
  /** The query's words as the search matched them (its match plan against the index's vocabulary); else `query`'s stems. */
  terms?: PassageQuery;
  /** The search's hits for the query, best first (a day's other hits after its best). */
  hits: readonly { path: string; score: number }[];
  byPath: ReadonlyMap<string, Memory>;
  bodyOf: (path: string) => string | undefined;
  /** A path's versions, finest first: a memory, its daily, its weekly; a summary, the next tier up. */
  ladder: (path: string) => Version[];
  memoryVersion: (memory: Memory) => Version;
}

/** A candidate's identity: its source, and which part of it for an excerpt. */
export const keyOf = (v: Version): string => (v.part ? `${v.source}#${v.part.first}-${v.part.last}` : v.source);

export function relevantFor(input: RelevantInput): Candidate[] {
  const { byPath } = input;
  const seen = new Set<string>();
  const hits = input.hits.filter((h) => !seen.has(h.path) && seen.add(h.path));
  const memoryHits = hits.filter((h) => byPath.has(h.path)).slice(0, PASSAGE_DOCS);
  const best = Math.max(0, ...memoryHits.map((h) => h.score)) || 1;
  // A day the query names: its memories count as the best match, and its date in words matches the texts' resolved
  // dates (`31 Dec 2023` finds `yesterday (31 December 2023)`).
  const days = namedDays(input.query);
  const weightOf = (h: { path: string; score: number }): number => (days.includes(byPath.get(h.path)!.day) ? 1 : h.score / best);
  const sources = memoryHits.map((h) => ({ path: h.path, body: input.bodyOf(h.path) ?? '', weight: weightOf(h) }));
  const out: Candidate[] = [];
  const quoted = new Set<string>();
  for (const p of rankPassages(sources, withDays(input.terms ?? input.query, days), { text: input.query })) {
    const memory = byPath.get(p.path)!;
    quoted.add(p.path);
    if (p.first === 0 && p.last === p.blocks - 1) {
      out.push({ tier: 'relevant', versions: input.ladder(p.path) });
      continue;
    }
    const whole = input.memoryVersion(memory);
    out.push({
      tier: 'relevant',
      versions: [{ ...whole, text: p.text, part: { first: p.first, last: p.last, of: p.blocks, line: p.line } }],
      whole,
    });
  }
  const quotedDays = new Set([...quoted].map((p) => byPath.get(p)!.day));
  for (const h of memoryHits) if (!quoted.has(h.path)) out.push({ tier: 'relevant', versions: input.ladder(h.path) });
  for (const h of hits) {
    if (byPath.has(h.path)) continue;
    const versions = input.ladder(h.path);
    const daily = /\/daily\/(\d{4}-\d{2}-\d{2})\.md$/.exec(h.path);
    if (versions.length > 0 && !(daily && quotedDays.has(daily[1]!))) out.push({ tier: 'relevant', versions });
  }
  return out;
}

/** The query with the stems of each named day in words (`31 December 2023`) as exact terms. */
function withDays(query: string | PassageQuery, days: readonly string[]): string | PassageQuery {
  if (days.length === 0) return query;
  const words = days.map(formatLongDate).join(' ');
  if (typeof query === 'string') return `${query} ${words}`;
  const stems = tokenize(words)
    .map(processTerm)
    .filter((s) => s && !query.terms.includes(s));
  return { ...query, terms: [...query.terms, ...new Set(stems)] };
}

/** Interleaves ranked lists (first of each, then second of each, …), dropping repeats by `key`. */
export function roundRobinBy<T>(lists: readonly T[][], key: (item: T) => string): T[] {
  const out: T[] = [];
  const seen = new Set<string>();
  for (let i = 0; lists.some((list) => i < list.length); i++) {
    for (const list of lists) {
      const item = list[i];
      if (item !== undefined && !seen.has(key(item))) {
        seen.add(key(item));
        out.push(item);
      }
    }
  }
  return out;
}
