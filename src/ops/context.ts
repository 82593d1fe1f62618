import * as z from 'zod';
import { assembleContext } from '../read/context/assemble.js';
import { pickStream } from '../read/vault.js';
import { budgetField, MIN_BUDGET, streamField } from './fields.js';
import { asInput } from './input.js';
import { defineOperation, READ_ONLY } from './operation.js';

/** `context`: the four-tier context for the signals given, within a token budget. */

const tiers = z.object({ critical: z.number(), relevant: z.number(), background: z.number(), index: z.number() });

export const contextOperation = defineOperation({
  name: 'context',
  tool: {
    name: 'context',
    title: 'Memory context',
    description: 'Memory for the current task within a token budget: pinned items, decisions, recent errors, relevant hits, background.',
  },
  input: z.strictObject({
    query: z.string().optional().describe('what you are working on or asking'),
    budget: budgetField(MIN_BUDGET, 'max tokens (default 8000)'),
    file: z.string().optional().describe('file being edited'),
    error: z.string().optional().describe('error message'),
    branch: z.string().optional().describe('git branch (default: the checked-out one)'),
    activity: z.enum(['debugging', 'feature', 'review', 'planning']).optional(),
    stream: streamField,
  }),
  output: z.object({
    context: z.string(),
    token_count: z.number(),
    budget: z.number(),
    tiers,
    allowance: tiers,
    items: z.array(
      z.object({
        tier: z.enum(['critical', 'relevant', 'background', 'index']),
        source: z.string(),
        tokens: z.number(),
        level: z.enum(['full', 'excerpt', 'coarser', 'cut']),
      }),
    ),
  }),
  annotations: READ_ONLY,
  async run(env, input) {
    const vault = await env.vault();
    // An unknown stream is an error before any index work.
    const stream = asInput(() => pickStream(vault, input.stream));
    const search = await env.contextSearch(vault);
    const branch = input.branch ?? (await env.branch());
    const result = assembleContext(vault, search, {
      budget: input.budget ?? 8000,
      now: env.now(),
      stream: stream.name,
      signals: {
        ...(input.query ? { query: input.query } : {}),
        ...(input.file ? { file: input.file } : {}),
        ...(input.error ? { error: input.error } : {}),
        ...(branch ? { branch } : {}),
      },
      ...(input.activity ? { activity: input.activity } : {}),
    });
    // The index tier only names what else there is to ask about: a listing, not served.
    const served = result.items
      .filter((item) => item.tier !== 'index' && item.source.endsWith('.md'))
      .map((item) => ({ stream: stream.name, path: item.source }));
    return { result, served };
  },
});
