import { contextOperation } from '../../ops/context.js';
import { cliNumber } from '../../ops/input.js';
import { runOperation } from '../../ops/operation.js';
import { cliEnv } from '../ops-env.js';
import { writeText } from '../output.js';
import { renderJson } from '../render/json.js';

export interface ContextCommandOptions {
  root?: string;
  budget?: string;
  query?: string;
  file?: string;
  error?: string;
  branch?: string;
  activity?: string;
  stream?: string;
  now?: string;
  json?: boolean;
}

/**
 * `memvault context`: the `context` operation (src/ops/context.ts), the
 * four-tier context for the given signals within a token budget. Writes
 * nothing but the search index.
 */
export async function contextCommand(options: ContextCommandOptions): Promise<void> {
  const env = await cliEnv(options);
  const { result } = await runOperation(contextOperation, env, {
    ...(options.budget !== undefined ? { budget: cliNumber(options.budget) } : {}),
    ...(options.query !== undefined ? { query: options.query } : {}),
    ...(options.file !== undefined ? { file: options.file } : {}),
    ...(options.error !== undefined ? { error: options.error } : {}),
    ...(options.branch !== undefined ? { branch: options.branch } : {}),
    ...(options.activity !== undefined ? { activity: options.activity } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
  });
  if (options.json) process.stdout.write(renderJson(result));
  else writeText(result.context);
}
