import { cliNumber } from '../../ops/input.js';
import { runOperation } from '../../ops/operation.js';
import { searchOperation } from '../../ops/search.js';
import type { SearchGroup } from '../../search/query.js';
import type { IndexReport } from '../../search/store.js';
import { cliEnv } from '../ops-env.js';
import { writeText } from '../output.js';
import { counted } from '../../text/plural.js';
import { staleNote } from '../../citations/state.js';
import { renderJson } from '../render/json.js';

export interface SearchCommandOptions {
  root?: string;
  stream?: string;
  tier?: string;
  since?: string;
  until?: string;
  limit?: string;
  reindex?: boolean;
  now?: string;
  json?: boolean;
}

/**
 * `memvault search QUERY`: the `search` operation (src/ops/search.ts), ranked
 * BM25 over memories (archive included) and summaries, fused with embedding
 * similarity when an `embeddings` profile is configured. Reads
 * `.memvault/search/`, which the build keeps current; builds it first when it
 * is missing or outdated, or rebuilds it with `--reindex`. Writes nothing else.
 */
export async function searchCommand(words: string[], options: SearchCommandOptions): Promise<void> {
  const env = await cliEnv(options);
  const { result } = await runOperation(searchOperation, env, {
    query: words.join(' '),
    ...(options.limit !== undefined ? { limit: cliNumber(options.limit) } : {}),
    ...(options.since !== undefined ? { since: options.since } : {}),
    ...(options.until !== undefined ? { until: options.until } : {}),
    ...(options.tier !== undefined ? { tier: options.tier } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    ...(options.reindex ? { reindex: true } : {}),
  });
  if (options.json) {
    process.stdout.write(renderJson(result));
    return;
  }
  const { index } = result;
  const reason = index.reason as IndexReport['reason'];
  writeText(
    renderSearch(result.hits, index.rebuilt ? `(search index built: ${counted(index.documents, 'document')}, ${REBUILT[reason!]})\n` : ''),
  );
}

const REBUILT: Record<NonNullable<IndexReport['reason']>, string> = {
  missing: 'there was none',
  unreadable: 'the old one was unreadable',
  outdated: 'the old one was of another version',
  foreign: 'the old one was not a memvault index',
  forced: 'as asked with --reindex',
};

/** Text output: one block per day (or summary), best hit first, then the other hits of that day. */
export function renderSearch(hits: readonly SearchGroup[], note = ''): string {
  if (hits.length === 0) return `${note}No matches.\n`;
  const lines: string[] = [];
  hits.forEach((hit, i) => {
    lines.push(`${i + 1}. ${hit.path}:${hit.line}  ${hit.tier === 'memories' ? hit.kind : hit.tier} ${hit.period}  score ${hit.score}`);
    lines.push(`   ${hit.snippet}`);
    if (hit.citations?.stale) lines.push(`   stale: ${staleNote(hit.citations)} (\`memvault verify\`)`);
    if (hit.more.length > 0)
      lines.push(
        `   + ${hit.more.length} more that day: ${hit.more
          .slice(0, 3)
          .map((m) => `${m.path}:${m.line}`)
          .join(', ')}${hit.more.length > 3 ? ', …' : ''}`,
      );
  });
  return `${note}${lines.join('\n')}\n`;
}
