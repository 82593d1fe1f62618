import path from 'node:path';
import * as z from 'zod';
import { parseQuery, TIERS } from '../search/query.js';
import { usageBoostLazy } from '../usage/boost-lazy.js';
import { UserError } from '../util/errors.js';
import { checkStreams, citationsField, knownStreams, streamField } from './fields.js';
import { asInput, InputError } from './input.js';
import { defineOperation, READ_ONLY } from './operation.js';

/** `search`: ranked hits over memories, the archive and summaries, grouped by day. */

const hitSchema = z.object({
  path: z.string(),
  line: z.number(),
  stream: z.string(),
  tier: z.string(),
  kind: z.string(),
  period: z.string(),
  title: z.string(),
  snippet: z.string(),
  score: z.number(),
  more: z.array(z.object({ path: z.string(), line: z.number(), score: z.number(), title: z.string() })),
  citations: citationsField,
});

export const searchOperation = defineOperation({
  name: 'search',
  tool: {
    name: 'search',
    title: 'Search memory',
    description: 'Ranked full-text search of memories and summaries; filters in the query: tag:x kind:x since:2026-02 "exact phrase".',
    omit: ['reindex'],
  },
  input: z.strictObject({
    query: z.string().describe('words, "phrases", tag:/kind:/stream:/tier:/since:/until: filters'),
    limit: z.number().int().min(1).max(100).optional().describe('max days of hits (default 10)'),
    since: z.string().min(1).optional().describe('day, week, month or phrase'),
    until: z.string().min(1).optional(),
    tier: z.enum(['all', ...TIERS]).optional(),
    stream: streamField.describe('only this stream (default: all)'),
    reindex: z.boolean().optional().describe('rebuild the search index first'),
  }),
  output: z.object({
    query: z.string(),
    parsed: z.object({ text: z.string(), phrases: z.array(z.string()), filters: z.record(z.string(), z.array(z.string())) }),
    hits: z.array(hitSchema),
    index: z.object({
      documents: z.number(),
      rebuilt: z.boolean(),
      reason: z.string().optional(),
      added: z.number().optional(),
      updated: z.number().optional(),
      removed: z.number().optional(),
    }),
    semantic: z.object({ model: z.string(), used: z.boolean(), vectors: z.number(), note: z.string().optional() }).optional(),
  }),
  annotations: READ_ONLY,
  async run(env, input) {
    const parsed = asInput(() => parseQuery(input.query));
    const hasFilter = Object.values(parsed.filters).some((values) => values.length > 0);
    if (!parsed.text.trim() && parsed.phrases.length === 0 && !hasFilter && !input.tier && !input.since && !input.until)
      throw new InputError(new UserError('search/empty', 'search needs words or a filter'));
    const config = await env.config();
    // An unknown stream is refused as zoom and context refuse it, not answered "No matches".
    checkStreams([...(input.stream ? [input.stream] : []), ...parsed.filters.stream], knownStreams(env.root, config));
    const at = { now: env.now(), zone: config.timezone };
    // `tier:` filters in the query are checked here as the `tier` argument is, so both are refused as input.
    for (const tier of parsed.filters.tier)
      if (!(TIERS as readonly string[]).includes(tier))
        throw new InputError(new UserError('search/tier', `tier \`${tier}\` is not one of ${TIERS.join(', ')}`));
    // Periods need the calendar code (luxon, chrono-node): loaded only when a `since` or `until` is given.
    const periodTexts = [input.since, input.until, ...parsed.filters.since, ...parsed.filters.until].filter((text) => text !== undefined);
    const periods = periodTexts.length > 0 ? await import('../read/period-query.js') : undefined;
    for (const text of periodTexts) asInput(() => periods!.parsePeriod(text, at));
    const since = input.since === undefined ? undefined : periods!.parsePeriod(input.since, at).start;
    const until = input.until === undefined ? undefined : periods!.parsePeriod(input.until, at).end;
    const session = await env.search(input.reindex ? { reindex: true } : {});
    // Items served before rank a little higher (src/usage/boost.ts); only the usage lines of ranked documents are parsed.
    const boost = usageBoostLazy(env.root, path.resolve(env.root, config.vault), Object.keys(config.streams));
    const response = await session.search(input.query, {
      now: at.now,
      ...(input.stream ? { stream: input.stream } : {}),
      ...(input.tier ? { tier: input.tier } : {}),
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
      limit: input.limit ?? 10,
      ...(boost ? { boost } : {}),
    });
    const built = session.built;
    const index = {
      documents: response.documents,
      ...(built
        ? {
            rebuilt: built.rebuilt,
            ...(built.reason ? { reason: built.reason } : {}),
            added: built.added,
            updated: built.updated,
            removed: built.removed,
          }
        : { rebuilt: false }),
    };
    // The best hit of each day is served (its snippet shown); the other hits of the day are only named: a listing.
    const served = response.hits.map((hit) => ({ stream: hit.stream, path: hit.path }));
    const result = {
      query: input.query,
      parsed,
      hits: response.hits,
      index,
      ...(response.semantic ? { semantic: response.semantic } : {}),
    };
    return { result, served };
  },
});
