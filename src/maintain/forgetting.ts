import { addDays, daysBetween, startOfDay, todayIn } from '../time/periods.js';
import type { Importance } from '../vault/model.js';
import { CappedMemo } from '../util/memo.js';

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

/** A forgotten memory, as the manifest and `status --json` list it. */
export interface ForgottenMemory {
  id: string;
  path: string;
  day: string;
  /** Day of the last retrieval that served it (too long ago), when there was one. */
  last_used?: string;
}

/** The settings forgetting reads (`forget_after_days`, a stream's `forget`); the defaults when absent. */
export interface ForgettingConfig {
  timezone: string;
  forget_after_days?: number | undefined;
  streams: Record<string, { forget?: boolean | undefined }>;
}

/** The policy of one stream: `forget_after_days` (default 90), off with `forget: false`. */
export function policyOf(config: ForgettingConfig, stream: string): ForgettingPolicy {
  return { afterDays: config.forget_after_days ?? FORGET_AFTER_DAYS, enabled: config.streams[stream]?.forget !== false };
}

/**
 * The forgetting decision of a stream: a pure function of its memories, their
 * usage counts (memory id → last use as an ISO instant), `now`, the config and
 * the ids of memories holding a fact in force. Copies marked `duplicate_of`
 * are not listed: they are left out as duplicates already.
 *
 * @example
 *   decideForgetting(memories, readUsage(root, 'main'), new Date(), config, 'main', new Set()) // [{ id: '2026-01-10-note', … }]
 */
export function decideForgetting(
  memories: readonly (ForgettingInput & { path: string; duplicateOf?: string | undefined })[],
  usage: ReadonlyMap<string, { lastUsed: string }>,
  now: Date,
  config: ForgettingConfig,
  stream: string,
  factsInForce: ReadonlySet<string>,
): ForgottenMemory[] {
  const policy = policyOf(config, stream);
  if (!policy.enabled) return [];
  const today = todayIn(now, config.timezone);
  // `retentionOf` with the day arithmetic done once: a day (or a last use) on or after `recent` is within `afterDays`.
  const recent = addDays(today, -policy.afterDays);
  // Uses are recorded as UTC ISO instants: one of those compares as text with the instant `recent` starts at.
  const recentInstant = startOfDay(recent, config.timezone).toISOString();
  const out: ForgottenMemory[] = [];
  for (const memory of memories) {
    if (memory.day >= recent || memory.duplicateOf !== undefined) continue;
    if (memory.importance === 'pinned' || memory.importance === 'high' || memory.kind.toLowerCase() === 'decision') continue;
    if (factsInForce.has(memory.id)) continue;
    const use = usage.get(memory.id)?.lastUsed;
    if (use !== undefined && ISO_UTC.test(use) && use >= recentInstant) continue;
    const lastUsed = lastUseDay(use, config.timezone);
    if (lastUsed !== undefined && lastUsed >= recent) continue;
    out.push({ id: memory.id, path: memory.path, day: memory.day, ...(lastUsed ? { last_used: lastUsed } : {}) });
  }
  return out;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// Uses come in bursts (one session serves many memories at once): their days are remembered, not worked out per memory.
const useDays = new CappedMemo<string, string | undefined>(10_000);

function lastUseDay(instant: string | undefined, zone: string): string | undefined {
  if (!instant) return undefined;
  return useDays.get(`${zone}\u0000${instant}`, () => {
    const at = new Date(instant);
    return Number.isNaN(at.getTime()) ? undefined : todayIn(at, zone);
  });
}
