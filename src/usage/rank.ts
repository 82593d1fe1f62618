import type { StreamState } from '../vault/model.js';
import type { UsageCount } from './codec.js';
import { readUsage } from './read.js';

/** One line of the most or least used list. */
export interface UsedItem {
  id: string;
  count: number;
  /** ISO instant of the last use; empty when never used. */
  last_used: string;
}

export interface UsageRanking {
  most_used: UsedItem[];
  least_used: UsedItem[];
}

/**
 * The most used items (by count, then latest use) and the least used
 * memories (never served first, oldest id first, then the fewest uses); at
 * most `n` of each. Pure.
 */
export function rankUsage(usage: ReadonlyMap<string, UsageCount>, memoryIds: readonly string[], n = 5): UsageRanking {
  const used = [...usage].map(([id, u]) => ({ id, count: u.count, last_used: u.lastUsed }));
  const most = used
    .filter((item) => item.count > 0)
    .sort((a, b) => b.count - a.count || (a.last_used < b.last_used ? 1 : a.last_used > b.last_used ? -1 : 0) || (a.id < b.id ? -1 : 1))
    .slice(0, n);
  const memories = memoryIds.map((id) => ({ id, count: usage.get(id)?.count ?? 0, last_used: usage.get(id)?.lastUsed ?? '' }));
  const least = memories.sort((a, b) => a.count - b.count || (a.id < b.id ? -1 : 1)).slice(0, n);
  return { most_used: most, least_used: least };
}

/** The ranking of one loaded stream from its usage counts. */
export function streamUsage(root: string, vaultDir: string, stream: StreamState, n = 5): UsageRanking {
  return rankUsage(
    readUsage(root, stream.name, vaultDir),
    stream.memories.map((m) => m.id),
    n,
  );
}
