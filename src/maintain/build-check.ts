import { diagnostic } from '../messages/diagnostic.js';
import type { Diagnostic } from '../messages/message.js';
import { addDays } from '../time/periods.js';
import type { Memory } from '../vault/model.js';
import { planConsolidation } from './consolidate.js';

/**
 * The build's look for near-duplicates: only when it summarizes days (new or
 * changed memories), and only the memories of those days against the
 * `BUILD_WINDOW_DAYS` days before each: a copy is most often written soon
 * after its original, and a no-change build reads nothing. `memvault
 * consolidate` compares the whole stream.
 */

/** Days before a summarized day whose memories a build compares with it. */
export const BUILD_WINDOW_DAYS = 7;
/** Shingles a memory needs for the build to warn about it: short notes (`Deployed to staging.`) repeat by nature. */
export const BUILD_MIN_SHINGLES = 8;

/** One warning per group that holds a memory of `changedDays`, at the copy's place, naming the memory to keep. */
export function nearDuplicateWarnings(
  vaultDir: string,
  stream: string,
  memories: readonly Memory[],
  changedDays: ReadonlySet<string>,
): Diagnostic[] {
  if (changedDays.size === 0) return [];
  const window = new Set<string>();
  for (const day of changedDays) for (let back = 0; back <= BUILD_WINDOW_DAYS; back++) window.add(addDays(day, -back));
  const nearby = memories.filter((m) => window.has(m.day));
  const changed = new Set(nearby.filter((m) => changedDays.has(m.day)).map((m) => m.id));
  const out: Diagnostic[] = [];
  for (const group of planConsolidation(vaultDir, stream, nearby, undefined, BUILD_MIN_SHINGLES).groups) {
    if (!changed.has(group.keep.id) && !group.duplicates.some((d) => changed.has(d.id))) continue;
    for (const copy of group.duplicates) {
      const reason = `nearly repeats ${group.keep.path} (similarity ${copy.similarity})`;
      out.push(
        diagnostic('memory/near-duplicate', { path: copy.path, line: 1, column: 1 }, reason, { facts: { stream, keep: group.keep.id } }),
      );
    }
  }
  return out;
}
