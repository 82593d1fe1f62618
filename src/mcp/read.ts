import { streamStatus, type StreamStatus } from '../pipeline/status.js';
import { parsePeriod } from '../read/period-query.js';
import type { SearchGroup } from '../read/search/query.js';
import type { SearchSession } from '../read/search/session.js';
import { pickStream } from '../read/vault.js';
import { zoom, type ZoomResult } from '../read/zoom.js';
import { readUsage } from '../usage/read.js';
import { usageBoost } from '../usage/boost.js';
import type { UsageCount } from '../usage/codec.js';
import { streamUsage, type UsedItem } from '../usage/rank.js';
import type { WarmState } from './warm.js';

/**
 * The read operations behind the MCP tools (and the session-start hook), on
 * a warm vault: each returns its data and the items it served, which the
 * caller counts (`recordUsage`).
 */

export type { Served } from './context.js';
import type { Served } from './context.js';

export interface SearchParams {
  query: string;
  limit?: number;
  since?: string;
  until?: string;
  tier?: string;
  stream?: string;
}

/**
 * Ranked hits, as `memvault search --json` gives them, through the warm
 * search session (`openSearch`: BM25, fused with embeddings when a profile
 * is configured), used items boosted a little.
 */
export async function searchWarm(
  state: WarmState,
  session: SearchSession,
  params: SearchParams,
  now: Date,
): Promise<{ hits: SearchGroup[]; served: Served[] }> {
  const { vault } = state;
  const at = { now, zone: vault.config.timezone };
  const boost = usageBoost(usageByStream(state));
  const { hits } = await session.search(params.query, {
    now,
    ...(params.stream ? { stream: params.stream } : {}),
    ...(params.tier ? { tier: params.tier } : {}),
    ...(params.since ? { since: parsePeriod(params.since, at).start } : {}),
    ...(params.until ? { until: parsePeriod(params.until, at).end } : {}),
    limit: params.limit ?? 10,
    ...(boost ? { boost } : {}),
  });
  const served = hits.flatMap((hit) => [
    { stream: hit.stream, path: hit.path },
    ...hit.more.map((m) => ({ stream: hit.stream, path: m.path })),
  ]);
  return { hits, served };
}

export { contextWarm, type ContextParams } from './context.js';

export interface ZoomParams {
  period: string;
  stream?: string;
  budget?: number;
  page?: number;
}

/** The memories of a period, paged by budget. */
export function zoomWarm(state: WarmState, params: ZoomParams, now: Date): { result: ZoomResult; served: Served[] } {
  const stream = pickStream(state.vault, params.stream);
  const period = parsePeriod(params.period, { now, zone: state.vault.config.timezone });
  const result = zoom(state.vault, {
    stream,
    period,
    ...(params.budget ? { budget: params.budget } : {}),
    ...(params.page ? { page: params.page } : {}),
  });
  const served = [...result.memories, ...result.summaries].map((item) => ({ stream: stream.name, path: item.path }));
  return { result, served };
}

export interface StatusAnswer {
  streams: (StreamStatus & { most_used: UsedItem[]; least_used: UsedItem[] })[];
  invalid_files: number;
}

/** Counts per tier, the package and the most and least used items of each stream (or of one). */
export function statusWarm(state: WarmState, stream: string | undefined): StatusAnswer {
  const { vault } = state;
  const streams = stream ? [pickStream(vault, stream)] : [...vault.loaded.state.streams.values()];
  return {
    streams: streams.map((s) => ({
      ...streamStatus(s, vault.config, vault.vaultDir, vault.root),
      ...streamUsage(vault.root, vault.vaultDir, s),
    })),
    invalid_files: vault.loaded.state.diagnostics.length,
  };
}

function usageByStream(state: WarmState): Map<string, Map<string, UsageCount>> {
  const out = new Map<string, Map<string, UsageCount>>();
  for (const name of state.vault.loaded.state.streams.keys()) out.set(name, readUsage(state.vault.root, name, state.vault.vaultDir));
  return out;
}
