import { assembleContext, type AssembledContext } from '../read/context/assemble.js';
import type { Activity } from '../read/context/budget.js';
import { pickStream, type ReadVault } from '../read/vault.js';
import type { SearchIndex } from '../read/search/index.js';

/**
 * The context operation of the MCP server, apart from the other read tools
 * (mcp/read.ts) so the session-start hook, which only assembles a context,
 * does not load zoom, status and usage ranking at start-up.
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
  const served = result.items.filter((item) => item.source.endsWith('.md')).map((item) => ({ stream: stream.name, path: item.source }));
  return { result, served };
}
