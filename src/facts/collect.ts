import { diagnostic } from '../messages/diagnostic.js';
import type { Diagnostic } from '../messages/message.js';
import type { Memory } from '../vault/model.js';
import { readVaultFile } from '../vault/scan.js';
import { extractFacts, type FactProblem } from './extract.js';
import type { Contradiction, Fact, TimedFact } from './model.js';
import { findContradictions, timeFacts } from './timeline.js';

/**
 * The facts of a set of memories (a stream, or the whole vault): each memory
 * file is read once (safely: no links, size-limited) and scanned for facts
 * without a markdown parse, then timed and compared. I/O at this edge only.
 */
export interface FactReport {
  facts: TimedFact[];
  contradictions: Contradiction[];
  problems: FactProblem[];
}

export function collectFacts(vaultDir: string, memories: readonly Memory[]): FactReport {
  const facts: Fact[] = [];
  const problems: FactProblem[] = [];
  const inside = new Map<string, boolean>();
  for (const memory of memories) {
    const read = readVaultFile(vaultDir, memory.path, inside);
    if (!read.ok) continue; // the loader has reported it
    const found = extractFacts({ memoryId: memory.id, path: memory.path, day: memory.day, raw: read.bytes.toString('utf8') });
    facts.push(...found.facts);
    problems.push(...found.problems);
  }
  const timed = timeFacts(facts);
  return { facts: timed, contradictions: findContradictions(timed), problems };
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
