import path from 'node:path';
import { enterProject as findRoot } from '../../config/file.js';
import { staleNote } from '../../citations/state.js';
import { parseQuery, type SearchGroup } from '../../read/search/query.js';
import { openSearch } from '../../read/search/session.js';
import type { IndexReport } from '../../read/search/store.js';
import { usageBoostLazy } from '../../usage/boost-lazy.js';
import { recordUsage } from '../../usage/log.js';
import { UserError } from '../../util/errors.js';
import { nowOf } from '../now.js';
import { writeText } from '../output.js';

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
 * `memvault search QUERY`: ranked BM25 search over memories (archive
 * included) and summaries, fused with embedding similarity when an
 * `embeddings` profile is configured. Reads `.memvault/search/`, which the
 * build keeps current; builds it first when it is missing or outdated, or
 * rebuilds it with `--reindex`. Writes nothing else.
 */
export async function searchCommand(words: string[], options: SearchCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const query = parseQuery(words.join(' '));
  if (
    !query.text.trim() &&
    Object.values(query.filters).every((v) => v.length === 0) &&
    !options.tier &&
    !options.since &&
    !options.until
  ) {
    throw new UserError('search/empty', 'search needs words or a filter');
  }
  const limit = options.limit === undefined ? 10 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UserError('cli/number', `--limit \`${options.limit}\` is not a positive whole number`, { flag: '--limit', example: 20 });
  const session = await openSearch(root, { ...(options.reindex ? { reindex: true } : {}) });
  const at = { now: await nowOf(options.now), zone: session.config.timezone };
  // Periods need the calendar code (luxon, chrono-node): loaded only when --since or --until is given.
  const periods = options.since !== undefined || options.until !== undefined ? await import('../../read/period-query.js') : undefined;
  const dayFilter = (text: string | undefined, end: 'start' | 'end'): string | undefined =>
    text === undefined ? undefined : periods!.parsePeriod(text, at)[end];
  const since = dayFilter(options.since, 'start');
  const until = dayFilter(options.until, 'end');
  // Items served before rank a little higher (src/usage/boost.ts); only the usage lines of ranked documents are parsed.
  const boost = usageBoostLazy(root, path.resolve(root, session.config.vault), Object.keys(session.config.streams));
  const response = await session.search(words.join(' '), {
    now: at.now,
    ...(options.stream ? { stream: options.stream } : {}),
    ...(options.tier ? { tier: options.tier } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    limit,
    ...(boost ? { boost } : {}),
  });
  const { hits } = response;
  const served = hits.flatMap((hit) => [hit, ...hit.more].map((h) => ({ stream: hit.stream, path: h.path })));
  recordUsage(root, served, 'cli:search');
  const indexReport: IndexReport | undefined = session.built;
  const indexInfo = {
    documents: response.documents,
    ...(indexReport
      ? {
          rebuilt: indexReport.rebuilt,
          ...(indexReport.reason ? { reason: indexReport.reason } : {}),
          added: indexReport.added,
          updated: indexReport.updated,
          removed: indexReport.removed,
        }
      : { rebuilt: false }),
  };
  if (options.json) {
    const semantic = response.semantic ? { semantic: response.semantic } : {};
    process.stdout.write(`${JSON.stringify({ query: words.join(' '), parsed: query, hits, index: indexInfo, ...semantic }, null, 2)}\n`);
    return;
  }
  writeText(
    renderSearch(
      hits,
      indexReport?.rebuilt ? `(search index built: ${indexInfo.documents} documents, ${REBUILT[indexReport.reason!]})\n` : '',
    ),
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
