import { daysBetween } from '../time/periods.js';
import type { Importance } from '../vault/model.js';

/**
 * Active forgetting: which memories leave the package's detail bands and the
 * context's candidates because nothing has used them for a while. A
 * forgotten memory is not deleted: it stays in the summaries (and their
 * provenance), in zoom and in search, is listed as forgotten in the manifest
 * and `status`, and comes back the moment a retrieval serves it (the usage
 * log then has a recent use). Pure: usage counts and `now` are inputs.
 *
 * Never forgotten: pinned or high importance, decisions, memories holding a
 * fact in force, memories younger than `afterDays`, memories used within
 * `afterDays`, and every memory of a stream with `forget: false`.
 */

/** Default `forget_after_days`. */
export const FORGET_AFTER_DAYS = 90;

export interface ForgettingInput {
  id: string;
  day: string;
  kind: string;
  importance: Importance;
}

export interface ForgettingPolicy {
  afterDays: number;
  enabled: boolean;
}

/** Why a memory is kept, or `forgotten`: for status and tests. */
export type Retention = 'forgotten' | 'disabled' | 'protected' | 'fact' | 'young' | 'used';

export function retentionOf(
  memory: ForgettingInput,
  today: string,
  lastUsedDay: string | undefined,
  factInForce: boolean,
  policy: ForgettingPolicy,
): Retention {
  if (!policy.enabled) return 'disabled';
  if (memory.importance === 'pinned' || memory.importance === 'high' || memory.kind.toLowerCase() === 'decision') return 'protected';
  if (factInForce) return 'fact';
  if (daysBetween(memory.day, today) <= policy.afterDays) return 'young';
  if (lastUsedDay !== undefined && daysBetween(lastUsedDay, today) <= policy.afterDays) return 'used';
  return 'forgotten';
}

/** The ids forgotten on `today`. `lastUsed` gives each used memory's last use as a day (`YYYY-MM-DD`). */
export function forgottenIds(
  memories: readonly ForgettingInput[],
  today: string,
  lastUsed: ReadonlyMap<string, string>,
  factsInForce: ReadonlySet<string>,
  policy: ForgettingPolicy,
): Set<string> {
  const out = new Set<string>();
  for (const memory of memories) {
    if (retentionOf(memory, today, lastUsed.get(memory.id), factsInForce.has(memory.id), policy) === 'forgotten') out.add(memory.id);
  }
  return out;
}
