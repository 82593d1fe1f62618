import { createHash } from 'node:crypto';
import { sameValue } from '../vault/fact-extract.js';
import type { Contradiction, Fact, TimedFact } from '../vault/fact-model.js';

/**
 * When each fact holds, and which pairs disagree. Pure. A fact holds from its
 * `valid_from` (default: its memory's day) until its `valid_to` or the day a
 * fact that supersedes it starts, whichever comes first. Facts are compared
 * only within one key and one scope: `primary_db (eu)` and `primary_db` never
 * contradict each other.
 */

const groupKey = (fact: Fact) => `${fact.key}\u0000${fact.scope}`;

/** Facts with the end their supersessions give them. */
export function timeFacts(facts: readonly Fact[]): TimedFact[] {
  const groups = groupBy(facts, groupKey);
  return facts.map((fact) => {
    const replacing = (groups.get(groupKey(fact)) ?? []).filter(
      (other) => other.memoryId !== fact.memoryId && other.supersedes.includes(fact.memoryId),
    );
    let effectiveTo = fact.validTo;
    for (const other of replacing) {
      const end = other.validFrom < fact.validFrom ? fact.validFrom : other.validFrom;
      if (effectiveTo === undefined || end < effectiveTo) effectiveTo = end;
    }
    return { ...fact, effectiveTo, supersededBy: replacing.map((other) => other.id) };
  });
}

/** Whether `fact` holds on `day` (`YYYY-MM-DD`). */
export function holdsOn(fact: TimedFact, day: string): boolean {
  return fact.validFrom <= day && (fact.effectiveTo === undefined || day < fact.effectiveTo);
}

/** The facts that hold on `day`, in key, scope, then valid-from order. */
export function factsAt(timed: readonly TimedFact[], day: string): TimedFact[] {
  return timed.filter((fact) => holdsOn(fact, day)).sort(byKeyThenTime);
}

/**
 * Every pair of facts with the same key and scope and different values whose
 * validity overlaps, unless one supersedes the other (directly or through a
 * chain) or a person recorded that both hold (`compatible_with`).
 */
export function findContradictions(timed: readonly TimedFact[]): Contradiction[] {
  const found: Contradiction[] = [];
  for (const group of groupBy(timed, groupKey).values()) {
    if (group.length < 2) continue;
    const replaces = supersessionClosure(group);
    const sorted = [...group].sort(byKeyThenTime);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const a = sorted[i]!;
        const b = sorted[j]!;
        if (sameValue(a.value, b.value)) continue;
        if (replaces(a.memoryId, b.memoryId) || replaces(b.memoryId, a.memoryId)) continue;
        if (a.compatibleWith.includes(b.memoryId) || b.compatibleWith.includes(a.memoryId)) continue;
        const since = a.validFrom > b.validFrom ? a.validFrom : b.validFrom;
        const ends = [a.effectiveTo, b.effectiveTo].filter((end): end is string => end !== undefined);
        const until = ends.length > 0 ? ends.sort()[0] : undefined;
        if (until !== undefined && until <= since) continue;
        found.push({ id: contradictionId(a, b), key: a.key, scope: a.scope, a, b, since });
      }
    }
  }
  return found.sort((x, y) => x.since.localeCompare(y.since) || x.id.localeCompare(y.id));
}

/** `c-` and 8 hex digits of the two fact ids, sorted: the same pair has the same id on every machine and build. */
export function contradictionId(a: Fact, b: Fact): string {
  const ids = [a.id, b.id].sort().join('\n');
  return `c-${createHash('sha256').update(ids).digest('hex').slice(0, 8)}`;
}

/** `replaces(x, y)`: memory x supersedes memory y, directly or through a chain of supersessions within the group. */
function supersessionClosure(group: readonly Fact[]): (x: string, y: string) => boolean {
  const direct = new Map<string, Set<string>>();
  for (const fact of group) {
    const set = direct.get(fact.memoryId) ?? new Set<string>();
    for (const id of fact.supersedes) if (id !== fact.memoryId) set.add(id);
    direct.set(fact.memoryId, set);
  }
  const memo = new Map<string, Set<string>>();
  const reach = (from: string): Set<string> => {
    const known = memo.get(from);
    if (known) return known;
    const seen = new Set<string>();
    memo.set(from, seen); // cycles end here
    const stack = [...(direct.get(from) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(direct.get(next) ?? []));
    }
    return seen;
  };
  return (x, y) => reach(x).has(y);
}

function byKeyThenTime(a: Fact, b: Fact): number {
  return (
    a.key.localeCompare(b.key) ||
    a.scope.localeCompare(b.scope) ||
    a.validFrom.localeCompare(b.validFrom) ||
    a.path.localeCompare(b.path) ||
    a.line - b.line
  );
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
