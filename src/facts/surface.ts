import type { Diagnostic } from '../messages/message.js';
import type { Memory } from '../vault/model.js';
import { contradictionDiagnostic, describeContradiction, streamFacts } from './collect.js';
import type { Contradiction, Fact, TimedFact } from '../vault/fact-model.js';
import { factsAt } from './timeline.js';

/**
 * What the build's outputs show of a stream's facts (the package, INDEX.md, `status`, the context): the open
 * contradictions, and the facts in force in compressed form. Pure, from the memories as loaded (the parser keeps
 * each memory's facts). A fact in an open contradiction is shown as unresolved, never as a fact in force; a
 * superseded fact, or one outside its window, is never shown.
 */
export interface FactSurface {
  /** Open contradictions, oldest first. */
  contradictions: Contradiction[];
  /** Facts in force on the day, in key, scope, then time order, those in an open contradiction left out. */
  inForce: TimedFact[];
}

/** The facts of `memories` (one stream) on `day` (`YYYY-MM-DD`). */
export function factSurface(memories: readonly Memory[], day: string): FactSurface {
  if (!memories.some((memory) => memory.facts !== undefined)) return { contradictions: [], inForce: [] };
  const report = streamFacts(memories);
  const disputed = new Set(report.contradictions.flatMap((contradiction) => [contradiction.a.id, contradiction.b.id]));
  return { contradictions: report.contradictions, inForce: factsAt(report.facts, day).filter((fact) => !disputed.has(fact.id)) };
}

/** True when any memory states a fact: the outputs of a vault without facts stay byte for byte what they were. */
export function statesFacts(memories: readonly Memory[]): boolean {
  return memories.some((memory) => memory.facts !== undefined);
}

/** The line of an open contradiction, with the command that settles it. */
export function unresolvedLine(contradiction: Contradiction): string {
  return `${describeContradiction(contradiction)}; decide: \`memvault resolve ${contradiction.id} --keep a|b|both\``;
}

/**
 * The warnings `build` reports about facts: each open contradiction once (at the later fact's place, naming the
 * other file and line) and each fact that could not be read, stream by stream.
 */
export function factWarnings(streams: Iterable<{ memories: readonly Memory[] }>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const stream of streams) {
    if (!statesFacts(stream.memories) && !stream.memories.some((memory) => memory.factProblems)) continue;
    const report = streamFacts(stream.memories);
    out.push(...report.contradictions.map(contradictionDiagnostic), ...report.problems);
  }
  return out;
}

/** The JSON shape of one contradiction (`facts --json`, `status --json`). */
export type ContradictionJson = ReturnType<typeof contradictionJson>;

/** A contradiction as `facts --json` and `status --json` print it: `{id, key, scope, since, a: {id, path, line, value, date}, b}`. */
export function contradictionJson(contradiction: Contradiction) {
  const side = (fact: Fact) => ({ id: fact.id, path: fact.path, line: fact.line, value: fact.value, date: fact.validFrom });
  return {
    id: contradiction.id,
    key: contradiction.key,
    scope: contradiction.scope,
    since: contradiction.since,
    a: side(contradiction.a),
    b: side(contradiction.b),
  };
}
