import type { Memory, SourceRef } from '../vault/model.js';

/**
 * `duplicate_of` marks as the pipeline reads them (no I/O: the planner imports
 * this). A copy stays on disk, in zoom and in search; summaries, the package's
 * detail and the context's candidates leave it out.
 */

/**
 * The copies that are left out: a memory whose `duplicate_of` names another
 * memory of the stream. A mark naming an unknown id, or two memories marked as
 * copies of each other, leave nothing out: a summary never loses both.
 */
export function duplicatesOf(memories: readonly Pick<Memory, 'id' | 'duplicateOf'>[]): Map<string, string> {
  const out = new Map<string, string>();
  if (!memories.some((m) => m.duplicateOf !== undefined)) return out;
  const byId = new Map(memories.map((m) => [m.id, m]));
  for (const m of memories) {
    if (m.duplicateOf === undefined) continue;
    const kept = byId.get(m.duplicateOf);
    if (kept && kept.duplicateOf !== m.id) out.set(m.id, m.duplicateOf);
  }
  return out;
}

/**
 * The memories summaries are built from: all but the copies left out (the same
 * array when there are none). A copy on a day with no other memory stays, so
 * the day keeps its daily; the rollup reads it as a one-line mention of the
 * memory it repeats (rollup-sources.ts), never its text.
 */
export function memoriesForSummaries<T extends Pick<Memory, 'id' | 'day' | 'duplicateOf'>>(memories: readonly T[]): readonly T[] {
  const duplicates = duplicatesOf(memories);
  if (duplicates.size === 0) return memories;
  const liveDays = new Set(memories.filter((m) => !duplicates.has(m.id)).map((m) => m.day));
  return memories.filter((m) => !duplicates.has(m.id) || !liveDays.has(m.day));
}

/**
 * The sources of each day's daily as the planner lists them (`planDailies` over
 * `memoriesForSummaries`): the day's memories in stream order, pinned by hash.
 * What a daily that holds only its sources' count and hash is checked against.
 */
export function dailySourcesByDay(memories: readonly Pick<Memory, 'id' | 'day' | 'duplicateOf' | 'sha256'>[]): Map<string, SourceRef[]> {
  const out = new Map<string, SourceRef[]>();
  for (const memory of memoriesForSummaries(memories)) {
    const ref = { id: memory.id, sha256: memory.sha256 };
    const day = out.get(memory.day);
    if (day) day.push(ref);
    else out.set(memory.day, [ref]);
  }
  return out;
}
