import { compressFact, streamFacts } from '../../facts/collect.js';
import { factSurface, statesFacts, unresolvedLine } from '../../facts/surface.js';
import type { TimedFact } from '../../vault/fact-model.js';
import { contentWords } from '../../text/terms.js';
import type { StreamState } from '../../vault/model.js';
import type { CriticalSource, Version } from './candidate.js';

/**
 * Facts in a context: the open contradictions (the default `CriticalSource`, first in the critical tier) and the
 * facts in force in compressed form (`key: value (scope)`): those the signals name in the critical tier, the rest in
 * the background tier. Superseded facts, and facts outside their window, are never shown; a fact in an open
 * contradiction is shown only as unresolved. Pure.
 */

/** Each open contradiction of the stream as an item at the later fact's file, naming both files and lines. */
export const openContradictions: CriticalSource = (_vault, stream) =>
  statesFacts(stream.memories)
    ? streamFacts(stream.memories).contradictions.map((contradiction) => ({
        source: contradiction.b.path,
        label: `Unresolved contradiction ${contradiction.id}: ${contradiction.key}`,
        text: unresolvedLine(contradiction),
      }))
    : [];

/** The facts in force on `day`: those sharing a content word with the signals (critical) and the others (background). */
export function factVersions(stream: StreamState, day: string, queries: readonly string[]): { critical?: Version; background?: Version } {
  if (!statesFacts(stream.memories)) return {};
  const inForce = factSurface(stream.memories, day).inForce;
  const wanted = new Set(queries.flatMap((query) => contentWords(query, 'summary')));
  const named = (fact: TimedFact) =>
    wanted.size > 0 && contentWords(`${fact.key.replace(/_/g, ' ')} ${fact.value} ${fact.scope}`, 'summary').some((w) => wanted.has(w));
  const matching = inForce.filter(named);
  const rest = inForce.filter((fact) => !named(fact));
  // The facts come from many memories: the stream's memories folder is their source; `memvault facts` gives each file and line.
  const version = (label: string, facts: readonly TimedFact[]): Version | undefined =>
    facts.length === 0 ? undefined : { source: `${stream.name}/memories`, label, text: [...new Set(facts.map(compressFact))].join('\n') };
  const critical = version(`Facts in force on ${day} about this`, matching);
  const background = version(`Facts in force on ${day}`, rest);
  return { ...(critical ? { critical } : {}), ...(background ? { background } : {}) };
}
