import type { FactReport } from './collect.js';
import type { Contradiction, TimedFact } from '../vault/fact-model.js';
import { factsAt } from './timeline.js';

/** What `memvault facts` shows, computed from a fact report: pure. */
export interface FactsView {
  at: string;
  holding: TimedFact[];
  /** Each key's facts in time order, superseded ones included (`--all`). */
  history: { key: string; scope: string; facts: TimedFact[] }[] | undefined;
  contradictions: Contradiction[];
  problems: FactReport['problems'];
}

export interface FactsQuery {
  /** Day to show (`YYYY-MM-DD`). */
  at: string;
  key?: string;
  scope?: string;
  all?: boolean;
}

export function factsView(report: FactReport, query: FactsQuery): FactsView {
  const wanted = (fact: { key: string; scope: string }) =>
    (query.key === undefined || fact.key === query.key) && (query.scope === undefined || fact.scope === query.scope);
  const facts = report.facts.filter(wanted);
  let history: FactsView['history'];
  if (query.all) {
    const groups = new Map<string, TimedFact[]>();
    for (const fact of facts) {
      const id = `${fact.key}\u0000${fact.scope}`;
      groups.set(id, [...(groups.get(id) ?? []), fact]);
    }
    history = [...groups.values()]
      .map((group) => ({
        key: group[0]!.key,
        scope: group[0]!.scope,
        facts: group.sort((a, b) => a.validFrom.localeCompare(b.validFrom) || a.path.localeCompare(b.path)),
      }))
      .sort((a, b) => a.key.localeCompare(b.key) || a.scope.localeCompare(b.scope));
  }
  return {
    at: query.at,
    holding: factsAt(facts, query.at),
    history,
    contradictions: report.contradictions.filter((contradiction) => wanted(contradiction)),
    problems: report.problems,
  };
}
