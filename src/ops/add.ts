import path from 'node:path';
import * as z from 'zod';
import { loadValidConfig } from '../config/load.js';
import { addMemory } from '../ingest/add.js';
import { checkAddInput } from '../ingest/add-limits.js';
import { checkDeclaredStream, declareStream } from '../project/streams.js';
import { asInput } from './input.js';
import { defineOperation } from './operation.js';

/**
 * `add` (MCP `add_memory`): one memory file, secrets redacted. The stream
 * must be one `memory.config.yaml` declares (a typo would start a stream of
 * its own); only the CLI's `--create-stream` adds it there. Every refusal
 * comes before anything is written.
 */

export const addOperation = defineOperation({
  name: 'add',
  tool: {
    name: 'add_memory',
    title: 'Add a memory',
    description: 'Save a memory (a decision, fact, instruction, finding) as a markdown file in the vault; secrets are redacted.',
    omit: ['create_stream', 'date', 'redact'],
  },
  input: z.strictObject({
    text: z.string().min(1).describe('the memory (markdown)'),
    title: z.string().optional(),
    tags: z.array(z.string()).optional(),
    kind: z.string().optional().describe('note, decision, error, fact, …'),
    importance: z.enum(['low', 'normal', 'high', 'pinned']).optional().describe('pinned: always in the package'),
    stream: z.string().min(1).optional().describe('a stream memory.config.yaml declares (default: the first)'),
    create_stream: z.boolean().optional().describe('declare `stream` in memory.config.yaml when it is not'),
    date: z.string().min(1).optional().describe('ISO date or datetime (default: now)'),
    redact: z.boolean().optional().describe('replace secrets (default true)'),
  }),
  output: z.object({
    /** The memory file, relative to the project folder. */
    path: z.string(),
    /** The same file, relative to the vault folder (as search and zoom name it). */
    vault_path: z.string(),
    id: z.string(),
    stream: z.string(),
    date: z.string(),
    redactions: z.array(z.object({ kind: z.string(), count: z.number() })),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(env, input) {
    const fields = {
      text: input.text,
      ...(input.title !== undefined ? { title: input.title } : {}),
      tags: input.tags ?? [],
      ...(input.kind !== undefined ? { kind: input.kind } : {}),
    };
    asInput(() => checkAddInput(fields));
    let declared: string | undefined;
    if (input.stream !== undefined) {
      const config = await loadValidConfig(env.root);
      if (!asInput(() => checkDeclaredStream(config, input.stream!, input.create_stream === true))) {
        declareStream(env.root, config, input.stream);
        declared = input.stream;
      }
    }
    const added = await addMemory({
      root: env.root,
      ...fields,
      ...(input.importance !== undefined ? { importance: input.importance } : {}),
      ...(input.stream !== undefined ? { stream: input.stream } : {}),
      ...(input.date !== undefined ? { date: input.date } : {}),
      now: env.now(),
      redact: input.redact !== false,
    });
    // A warm vault (the MCP server) sees it at the next request without waiting for its file watcher.
    env.wrote([added.path]);
    const result = {
      path: path.relative(env.root, added.file).split(path.sep).join('/'),
      vault_path: added.path,
      id: added.id,
      stream: added.stream,
      date: added.date,
      redactions: added.redactions,
    };
    return { result, detail: { file: added.file, declared } };
  },
});
