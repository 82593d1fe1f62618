import type { UsageRanking, UsedItem } from '../../usage/rank.js';

/** `memvault status` lines: `  most used: a (7), b (3)` and `  least used: c (0), d (0)`. */
export function renderUsage(ranking: UsageRanking): string[] {
  const list = (items: UsedItem[]): string => items.map((item) => `${item.id} (${item.count})`).join(', ');
  if (ranking.most_used.length === 0) return ['  most used: nothing served yet (context, search and zoom count what they serve)'];
  return [`  most used: ${list(ranking.most_used)}`, `  least used: ${list(ranking.least_used)}`];
}
