import { diagnostic } from '../messages/diagnostic.js';
import type { Diagnostic } from '../messages/message.js';
import type { Memory } from '../vault/model.js';
import { type FactProblem, factsOf } from '../vault/fact-extract.js';
import type { Contradiction, Fact, TimedFact } from '../vault/fact-model.js';
import { factsAt, findContradictions, timeFacts } from './timeline.js';

/**
 * The facts of a stream, or of several, from the memories as loaded: the parser keeps each memory's facts
 * (`Memory.facts`), so this reads no file. Pure. Streams are timed and compared apart: memory ids (which
 * `supersedes` names) are unique within a stream only, and each stream has its own package and context.
 */
export interface FactReport {
  facts: TimedFact[];
  contradictions: Contradiction[];
  problems: FactProblem[];
}

/** The facts of one stream's memories: timed, compared, and the problems met reading them. */
export function streamFacts(memories: readonly Memory[]): FactReport {
  const facts: Fact[] = [];
  const problems: FactProblem[] = [];
  for (const memory of memories) {
    if (memory.facts) facts.push(...factsOf(memory));
    // Named where the memory is now (a build may have archived it since it was parsed).
    if (memory.factProblems) problems.push(...memory.factProblems.map((problem) => ({ ...problem, path: memory.path })));
  }
  const timed = timeFacts(facts);
  return { facts: timed, contradictions: findContradictions(timed), problems };
}

/**
 * The facts of memories of one or more streams, each stream timed and compared on its own (see `streamFacts`).
 * The two-argument form is the one from before facts were kept on memories: the vault folder is no longer read.
 */
export function collectFacts(memories: readonly Memory[]): FactReport;
/** @deprecated the vault folder is not read any more: `collectFacts(memories)`. */
export function collectFacts(vaultDir: string, memories: readonly Memory[]): FactReport;
export function collectFacts(first: string | readonly Memory[], second?: readonly Memory[]): FactReport {
  const memories = typeof first === 'string' ? (second ?? []) : first;
  const byStream = new Map<string, Memory[]>();
  for (const memory of memories) {
    const list = byStream.get(memory.stream);
    if (list) list.push(memory);
    else byStream.set(memory.stream, [memory]);
  }
  const reports = [...byStream.values()].map(streamFacts);
  return {
    facts: reports.flatMap((report) => report.facts),
    contradictions: reports.flatMap((report) => report.contradictions),
    problems: reports.flatMap((report) => report.problems),
  };
}

/** The facts in force on `day` (none superseded or out of their window), in key, scope, then time order. */
export function factsInForce(report: FactReport, day: string): TimedFact[] {
  return factsAt(report.facts, day);
}

/** `Unresolved: primary_db = postgresql (2026-02-10, main/memories/a.md:3) vs mysql (2026-03-01, main/memories/b.md:1)` */
export function describeContradiction(contradiction: Contradiction): string {
  const side = (fact: Fact) => `${fact.value} (${fact.validFrom}, ${fact.path}:${fact.line})`;
  const scope = contradiction.scope ? ` [${contradiction.scope}]` : '';
  return `Unresolved: ${contradiction.key}${scope} = ${side(contradiction.a)} vs ${side(contradiction.b)}`;
}

/** The compressed form of a fact for packages and contexts: `key: value (scope)`. */
export function compressFact(fact: Fact): string {
  return `${fact.key}: ${fact.value}${fact.scope ? ` (${fact.scope})` : ''}`;
}

/**
 * A contradiction as a warning at the later fact's place, naming the other one: what `build` and `status` report.
 * `path:line:col warning primary_db = mysql contradicts postgresql (main/memories/a.md:4) [fact/contradiction]`
 */
export function contradictionDiagnostic(contradiction: Contradiction): Diagnostic {
  const { a, b } = contradiction;
  const scope = contradiction.scope ? ` (${contradiction.scope})` : '';
  const reason = `${contradiction.key}${scope} = ${b.value} contradicts ${a.value} (${a.path}:${a.line}) since ${contradiction.since}`;
  return diagnostic('fact/contradiction', { path: b.path, line: b.line, column: 1 }, reason, { facts: { id: contradiction.id } });
}
