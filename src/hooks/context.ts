import { assembleContext, type AssembledContext } from '../read/context/assemble.js';
import type { Activity } from '../read/context/budget.js';
import { pickStream, type ReadVault } from '../read/vault.js';
import type { SearchIndex } from '../search/index.js';

/**
 * A context on a warm vault for the session-start hook, which only
 * assembles a context and so does not load the operations layer, zoom,
 * status and usage ranking at start-up (the MCP tool `context` runs the
 * `context` operation, src/ops/context.ts).
 */

export interface Served {
  stream: string;
  path: string;
}

export interface ContextParams {
  query?: string;
  budget?: number;
  file?: string;
  error?: string;
  activity?: Activity;
  stream?: string;
  branch?: string;
}

/** The assembled context of a stream for the signals given (none: a query-less context). */
export function contextWarm(
  state: { vault: ReadVault; index: SearchIndex },
  params: ContextParams,
  now: Date,
): { result: AssembledContext; served: Served[] } {
  const stream = pickStream(state.vault, params.stream);
  const result = assembleContext({
    vault: state.vault,
    stream,
    index: state.index,
    budget: params.budget ?? 8000,
    now,
    signals: {
      ...(params.query ? { query: params.query } : {}),
      ...(params.file ? { file: params.file } : {}),
      ...(params.error ? { error: params.error } : {}),
      ...(params.branch ? { branch: params.branch } : {}),
    },
    ...(params.activity ? { activity: params.activity } : {}),
  });
  // The index tier only names what else there is to ask about: a listing, not served (as the `context` operation counts).
  const served = result.items
    .filter((item) => item.tier !== 'index' && item.source.endsWith('.md'))
    .map((item) => ({ stream: stream.name, path: item.source }));
  return { result, served };
}
