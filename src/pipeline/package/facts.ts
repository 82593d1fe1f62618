import { compressFact } from '../../facts/collect.js';
import { factSurface, unresolvedLine } from '../../facts/surface.js';
import { oneLine } from '../../text/safe-text.js';
import type { Memory } from '../../vault/model.js';

/**
 * The facts of a package: the open contradictions, as lines right after the header, and the facts in force in
 * compressed form (`key: value (scope)`) after the pinned memories. Both belong to the critical part; when it is
 * over budget the facts in force are cut from the end (the count of the rest is named) before the build gives up.
 */
export interface PackageFacts {
  day: string;
  /** Ids of the open contradictions, and their lines (`Unresolved: …`). */
  contradictions: string[];
  unresolved: string[];
  /** Facts in force, compressed, each line once. */
  inForce: string[];
  /** How many of `inForce` are shown (the first ones). */
  shown: number;
}

/** The facts of a stream's memories on `day`; undefined when no memory states one (the package is as before facts). */
export function packageFacts(memories: readonly Memory[], day: string): PackageFacts | undefined {
  if (!memories.some((memory) => memory.facts !== undefined)) return undefined;
  const surface = factSurface(memories, day);
  // Keys, values and scopes are written by people: each fact stays one line of the package (`oneLine`).
  const inForce = [...new Set(surface.inForce.map((fact) => oneLine(compressFact(fact))))];
  return {
    day,
    contradictions: surface.contradictions.map((contradiction) => contradiction.id),
    unresolved: surface.contradictions.map((contradiction) => oneLine(unresolvedLine(contradiction))),
    inForce,
    shown: inForce.length,
  };
}

/** The `Unresolved: …` lines, one block; undefined when none is open. */
export function renderUnresolved(facts: PackageFacts | undefined): string | undefined {
  return facts && facts.unresolved.length > 0 ? facts.unresolved.join('\n') : undefined;
}

/** The section of facts in force; undefined when there is none. */
export function renderFactsInForce(facts: PackageFacts | undefined): string | undefined {
  if (!facts || facts.inForce.length === 0) return undefined;
  const lines = facts.inForce.slice(0, facts.shown).map((line) => `- ${line}`);
  const rest = facts.inForce.length - facts.shown;
  if (rest > 0) lines.push(`- … ${rest} more fact(s) in force did not fit: \`memvault facts\``);
  return `## Facts in force on ${facts.day}\n\n${lines.join('\n')}`;
}

/** The most facts in force (`shown`) for which `fits` holds, by bisection; 0 when even none fit. */
export function fitFacts(facts: PackageFacts, fits: (shown: number) => boolean): number {
  let low = 0;
  let high = facts.inForce.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}
