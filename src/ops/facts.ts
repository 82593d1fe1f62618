import * as z from 'zod';
import { collectFacts } from '../facts/collect.js';
import { normalizeKey } from '../vault/fact-extract.js';
import { contradictionJson } from '../facts/surface.js';
import { factsView, type FactsView } from '../facts/view.js';
import { parsePeriod } from '../read/period-query.js';
import { pickStream } from '../read/vault.js';
import { todayIn } from '../time/periods.js';
import { diagnosticSchema } from './fields.js';
import { asInput } from './input.js';
import { defineOperation, READ_ONLY } from './operation.js';

/** `facts`: what holds on a day per key and scope, each key's history, and the open contradictions. Read-only. */

const factSchema = z.object({
  id: z.string(),
  key: z.string(),
  value: z.string(),
  scope: z.string(),
  path: z.string(),
  line: z.number(),
  valid_from: z.string(),
  valid_to: z.string().nullable(),
  superseded_by: z.array(z.string()),
  confidence: z.number().optional(),
});

const side = z.object({ id: z.string(), path: z.string(), line: z.number(), value: z.string(), date: z.string() });
export const contradictionSchema = z.object({ id: z.string(), key: z.string(), scope: z.string(), since: z.string(), a: side, b: side });

export const factsOperation = defineOperation({
  name: 'facts',
  tool: {
    name: 'facts',
    title: 'Facts in force',
    description: 'What holds now (or at a day) per key and scope, and the open contradictions between memories.',
  },
  input: z.strictObject({
    key: z.string().min(1).optional().describe('only this key'),
    scope: z.string().min(1).optional().describe('only this scope'),
    at: z.string().min(1).optional().describe('the state on this day (a day or a period: its first day); default today'),
    all: z.boolean().optional().describe('also each key’s history'),
    stream: z.string().min(1).optional().describe('only this stream (default: all)'),
  }),
  output: z.object({
    at: z.string(),
    facts: z.array(factSchema),
    history: z.array(z.object({ key: z.string(), scope: z.string(), facts: z.array(factSchema) })).optional(),
    contradictions: z.array(contradictionSchema),
    problems: z.array(diagnosticSchema),
  }),
  annotations: READ_ONLY,
  async run(env, input) {
    const vault = await env.vault();
    const now = env.now();
    const zone = vault.config.timezone;
    // `at` takes what zoom takes (a day, `last week`, `2026-03`): the fact state on the period's first day.
    const at = input.at === undefined ? todayIn(now, zone) : asInput(() => parsePeriod(input.at!, { now, zone }).start);
    const streams = input.stream ? [asInput(() => pickStream(vault, input.stream))] : [...vault.loaded.state.streams.values()];
    const report = collectFacts(streams.flatMap((stream) => stream.memories));
    const view: FactsView = factsView(report, {
      at,
      ...(input.key !== undefined ? { key: normalizeKey(input.key) } : {}),
      ...(input.scope !== undefined ? { scope: normalizeKey(input.scope) } : {}),
      all: input.all === true,
    });
    const result = {
      at: view.at,
      facts: view.holding.map(factJson),
      ...(view.history ? { history: view.history.map((entry) => ({ ...entry, facts: entry.facts.map(factJson) })) } : {}),
      contradictions: view.contradictions.map(contradictionJson),
      problems: view.problems,
    };
    return { result, detail: view };
  },
});

function factJson(fact: FactsView['holding'][number]): z.output<typeof factSchema> {
  return {
    id: fact.id,
    key: fact.key,
    value: fact.value,
    scope: fact.scope,
    path: fact.path,
    line: fact.line,
    valid_from: fact.validFrom,
    valid_to: fact.effectiveTo ?? null,
    superseded_by: fact.supersededBy,
    ...(fact.confidence !== undefined ? { confidence: fact.confidence } : {}),
  };
}
