import * as z from 'zod';
import type { Config } from '../config/schema.js';
import { leftOutOf } from '../maintain/left-out.js';
import { maintenanceStatus, readStatusFiles, vaultStatus } from '../pipeline/status.js';
import { pickStream } from '../read/vault.js';
import type { UncommittedChanges } from '../project/uncommitted.js';
import { streamUsage } from '../usage/rank.js';
import { diagnosticSchema, streamField } from './fields.js';
import { asInput } from './input.js';
import { defineOperation, READ_ONLY } from './operation.js';

/**
 * `status`: counts per tier, the package, waterfall position, facts, usage
 * ranking, what is left out, and the uncommitted vault changes. Reads only;
 * serves no item, so it counts no usage.
 */

const usedItem = z.object({ id: z.string(), count: z.number(), last_used: z.string() });

const streamSchema = z.object({
  name: z.string(),
  memories: z.number(),
  archived: z.number(),
  pinned: z.number(),
  coverage: z.object({ first_day: z.string().nullable(), last_day: z.string().nullable(), days_with_memories: z.number() }),
  tiers: z.record(z.string(), z.object({ count: z.number(), tokens_total: z.number(), tokens_max: z.number() })),
  package: z
    .object({
      path: z.string(),
      tokens: z.number(),
      bytes: z.number(),
      max_tokens: z.number(),
      max_bytes: z.number(),
      degraded: z.number(),
      left_out: z.number(),
    })
    .nullable(),
  waterfall: z
    .object({
      memories: z.number(),
      compaction: z.number(),
      next_compaction_at: z.number(),
      layers: z.object({ longterm: z.number(), recent: z.number(), immediate: z.number() }),
    })
    .optional(),
  usage: z.object({ most_used: z.array(usedItem), least_used: z.array(usedItem) }).optional(),
  facts: z.object({ in_force: z.number(), contradictions: z.array(z.object({ id: z.string() })) }).optional(),
  maintenance: z
    .object({
      forget_after_days: z.number().nullable(),
      forgotten: z.object({ count: z.number() }),
      duplicates: z.object({ count: z.number(), memories: z.array(z.object({ id: z.string(), duplicate_of: z.string() })) }),
    })
    .optional(),
});

export const statusOperation = defineOperation({
  name: 'status',
  tool: {
    name: 'status',
    title: 'Vault status',
    description: 'Memory counts, summaries per tier, the package size and the most and least used memories.',
  },
  input: z.strictObject({ stream: streamField.describe('only this stream (default: all)') }),
  output: z.object({
    vault: z.string(),
    streams: z.array(streamSchema),
    invalid: z.array(diagnosticSchema),
    held_for_secrets: z.array(z.string()),
    /** Vault changes git does not have yet, each kind with the command that commits it; null outside a repository. */
    uncommitted: z.object({ memvault: z.array(z.string()), other: z.array(z.string()), fix: z.string(), fix_other: z.string() }).nullable(),
  }),
  annotations: READ_ONLY,
  async run(env, input) {
    const vault = await env.vault();
    const only = input.stream === undefined ? undefined : asInput(() => pickStream(vault, input.stream)).name;
    const { config, root, loaded } = vault;
    const now = env.now();
    const status = vaultStatus({ config, root, state: loaded.state, now, files: readStatusFiles(root, config, loaded.state) });
    const streams = status.streams.filter((s) => only === undefined || s.name === only);
    for (const s of streams) {
      const state = loaded.state.streams.get(s.name)!;
      // The most and least used items of each stream, from its usage.json and this clone's log.
      s.usage = streamUsage(root, status.vault, state);
      // Forgotten memories and marked copies as of `now`, from the same usage counts (a retrieval since the build brings one back).
      s.maintenance = maintenanceStatus(leftOutOf(root, status.vault, config, state, now), config, s.name);
    }
    // Uncommitted vault changes, memvault's and the others, each with the command that commits them.
    const { uncommittedChanges } = await import('../project/uncommitted.js');
    const changes = await uncommittedChanges(root, config);
    const uncommitted = changes
      ? { memvault: changes.memvault, other: changes.other, fix: changes.fix, fix_other: changes.fixOther }
      : null;
    return {
      result: { ...status, streams, uncommitted },
      detail: { config: config as Config, changes: changes as UncommittedChanges | undefined, status: { ...status, streams } },
    };
  },
});
