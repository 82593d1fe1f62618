import type { UsageCount } from './codec.js';
import { usageKey } from './fold.js';
import { readUsage } from './read.js';

/**
 * The search boost of used items: a hit's BM25 score is multiplied by
 * `1 + 0.05 · log2(1 + count)`, at most 1.25 (a memory served 1 time: ×1.05,
 * 7 times: ×1.15, 31 or more: ×1.25). Small on purpose: it breaks near-ties
 * in favour of what agents and people actually used, and never lifts a weak
 * match over a strong one.
 */
export const MAX_USAGE_BOOST = 1.25;

export function usageFactor(count: number): number {
  return count <= 0 ? 1 : Math.min(MAX_USAGE_BOOST, 1 + 0.05 * Math.log2(1 + count));
}

/**
 * A boost function over search document ids (vault-relative paths) from the
 * usage counts of each stream; undefined when nothing was ever used, so a
 * search without usage runs exactly as before.
 */
export function usageBoost(byStream: ReadonlyMap<string, ReadonlyMap<string, UsageCount>>): ((docPath: string) => number) | undefined {
  if ([...byStream.values()].every((counts) => counts.size === 0)) return undefined;
  return (docPath) => {
    const counts = byStream.get(docPath.slice(0, docPath.indexOf('/')));
    const key = counts && usageKey(docPath);
    return key ? usageFactor(counts.get(key)?.count ?? 0) : 1;
  };
}

/** The boost from every named stream's usage (committed counts and this clone's log), or undefined when nothing was used. */
export function usageBoostFor(root: string, vaultDir: string, streams: readonly string[]): ((docPath: string) => number) | undefined {
  return usageBoost(new Map(streams.map((stream) => [stream, readUsage(root, stream, vaultDir)])));
}
