import * as z from 'zod';
import { parseNumberRange, parsePeriod } from '../read/period-query.js';
import { transcriptOf } from '../read/transcripts.js';
import { pickStream } from '../read/vault.js';
import { zoom } from '../read/zoom.js';
import { PERIOD_TIERS, type PeriodTier } from '../time/tiers.js';
import { UserError } from '../util/errors.js';
import { budgetField, citationsField, MIN_BUDGET, streamField } from './fields.js';
import { asInput, InputError } from './input.js';
import { defineOperation, READ_ONLY } from './operation.js';

/** `zoom`: the full memories of a period (or a range of memory numbers), with the summaries covering it, paged by budget. */

const memorySchema = z.object({
  number: z.number(),
  id: z.string(),
  path: z.string(),
  location: z.enum(['memories', 'archive']),
  date: z.string(),
  day: z.string(),
  title: z.string().nullable(),
  kind: z.string(),
  tags: z.array(z.string()),
  importance: z.string(),
  body: z.string(),
  tokens: z.number(),
  summarized_in: z.array(z.string()),
  duplicate_of: z.string().optional(),
  /** With `transcripts`: the full session behind a distilled coding-agent memory. */
  transcript: z.object({ path: z.string(), text: z.string() }).optional(),
  citations: citationsField,
});

const summarySchema = z.object({
  tier: z.string(),
  period: z.string(),
  path: z.string(),
  start: z.string(),
  end: z.string(),
  tokens: z.number(),
  sources: z.array(z.string()),
  body: z.string().optional(),
});

/** The tiers zoom can show instead of memories: one summary per period (the tier table, time/tiers.ts). */
const ZOOM_TIERS = PERIOD_TIERS as [PeriodTier, ...PeriodTier[]];

export const zoomOperation = defineOperation({
  name: 'zoom',
  tool: {
    name: 'zoom',
    title: 'Zoom into a period',
    description: 'Full memories of a period (2026-02-13, 2026-W07, 2026-02, "last week"), with the summaries covering it; paged by budget.',
    omit: ['transcripts'],
  },
  input: z.strictObject({
    period: z.string().min(1).optional().describe('a day, ISO week, month, quarter, A..B range or phrase'),
    memories: z.string().min(1).optional().describe('memory numbers in the stream, e.g. 65..128 (waterfall streams)'),
    stream: streamField,
    budget: budgetField(MIN_BUDGET, 'max tokens per page'),
    page: z.number().int().min(1).optional(),
    tier: z.enum(ZOOM_TIERS).optional().describe('the summaries of this tier instead of the memories'),
    transcripts: z.boolean().optional().describe('with each distilled coding-agent session, its full transcript'),
  }),
  output: z.object({
    stream: z.string(),
    period: z.object({ label: z.string(), kind: z.string(), start: z.string(), end: z.string() }).nullable(),
    memory_range: z.object({ from: z.number(), to: z.number() }).nullable(),
    showing: z.enum(['memories', ...ZOOM_TIERS]),
    memories: z.array(memorySchema),
    summaries: z.array(summarySchema),
    covering: z.array(summarySchema),
    total: z.object({ items: z.number(), tokens: z.number() }),
    page: z.object({
      page: z.number(),
      pages: z.number(),
      budget: z.number().nullable(),
      tokens: z.number(),
      items_left: z.number(),
      tokens_left: z.number(),
    }),
    truncated: z.string().nullable(),
  }),
  annotations: READ_ONLY,
  async run(env, input) {
    if (input.period === undefined && input.memories === undefined) {
      const hint = 'e.g. memvault zoom 2026-W07, memvault zoom yesterday, memvault zoom --memories 65..128';
      throw new InputError(new UserError('read/period', 'zoom needs a period or --memories', {}, { hint }));
    }
    const memoryRange = input.memories === undefined ? undefined : asInput(() => parseNumberRange(input.memories!));
    const vault = await env.vault();
    const period =
      input.period === undefined ? undefined : asInput(() => parsePeriod(input.period!, { now: env.now(), zone: vault.config.timezone }));
    const stream = asInput(() => pickStream(vault, input.stream));
    const result = zoom(vault, {
      stream,
      ...(period ? { period } : {}),
      ...(memoryRange ? { memoryRange } : {}),
      ...(input.budget ? { budget: input.budget } : {}),
      ...(input.page ? { page: input.page } : {}),
      ...(input.tier ? { tier: input.tier } : {}),
    });
    const memories = result.memories.map((item) => {
      if (!input.transcripts) return item;
      const memory = stream.memories.find((candidate) => candidate.path === item.path);
      const transcript = memory && transcriptOf(vault.vaultDir, memory);
      return transcript ? { ...item, transcript } : item;
    });
    const served = [...result.memories, ...result.summaries].map((item) => ({ stream: stream.name, path: item.path }));
    return { result: { ...result, memories }, served };
  },
});
