import * as z from 'zod';
import { collectFacts } from '../facts/collect.js';
import { planResolution, type ResolutionPlan } from '../facts/resolve.js';
import { contradictionJson } from '../facts/surface.js';
import { todayIn } from '../time/periods.js';
import { writeFileAtomic } from '../util/atomic.js';
import { UserError } from '../util/errors.js';
import { readVaultFile } from '../vault/scan.js';
import { contradictionSchema } from './facts.js';
import { InputError } from './input.js';
import { defineOperation } from './operation.js';

/**
 * `resolve`: records a person's decision about a contradiction in the
 * memories' frontmatter (`supersedes` or `compatible_with`). A normal edit:
 * the next build commits it; nothing is deleted. Not an MCP tool: which
 * fact holds is a person's call.
 */

export const resolveOperation = defineOperation({
  name: 'resolve',
  input: z.strictObject({
    id: z.string().min(1).describe('a contradiction id from `facts` (c-1a2b3c4d)'),
    keep: z.enum(['a', 'b', 'both']).describe('a or b: that fact supersedes the other; both: they hold together'),
    note: z.string().optional().describe('why, kept in resolution_notes of the memory written to'),
    dry_run: z.boolean().optional().describe('plan the edit, write nothing'),
  }),
  output: z.object({
    contradiction: contradictionSchema,
    keep: z.enum(['a', 'b', 'both']),
    edits: z.array(z.object({ path: z.string(), change: z.string() })),
    written: z.boolean(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(env, input) {
    const vault = await env.vault();
    const report = collectFacts([...vault.loaded.state.streams.values()].flatMap((stream) => stream.memories));
    const contradiction = report.contradictions.find((candidate) => candidate.id === input.id);
    if (!contradiction) {
      const open = report.contradictions.map((candidate) => candidate.id);
      const known = open.length > 0 ? `open now: ${open.slice(0, 10).join(', ')}` : 'there are none open';
      throw new InputError(new UserError('fact/unknown-contradiction', `no open contradiction \`${input.id}\``, { known }));
    }
    const plan: ResolutionPlan = planResolution(contradiction, input.keep, input.note, todayIn(env.now(), vault.config.timezone));
    // Every edit is computed before any file is written: a file that cannot be edited leaves all of them as they were.
    const writes = plan.edits.map((edit) => {
      const read = readVaultFile(vault.vaultDir, edit.path);
      if (!read.ok) throw new UserError('fact/frontmatter', `${edit.path} cannot be read (${read.diagnostic.reason})`, {});
      return { path: edit.path, file: `${vault.vaultDir}/${edit.path}`, text: edit.apply(read.bytes.toString('utf8')) };
    });
    if (!input.dry_run) {
      for (const write of writes) writeFileAtomic(write.file, write.text);
      env.wrote(writes.map((write) => write.path));
    }
    const result = {
      contradiction: contradictionJson(contradiction),
      keep: input.keep,
      edits: plan.edits.map((edit) => ({ path: edit.path, change: edit.change })),
      written: !input.dry_run,
    };
    return { result, detail: plan };
  },
});
