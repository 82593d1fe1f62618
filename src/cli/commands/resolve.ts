import { runOperation } from '../../ops/operation.js';
import { resolveOperation } from '../../ops/resolve.js';
import { cliEnv } from '../ops-env.js';
import { writeText } from '../output.js';
import { renderResolution } from '../render/facts.js';
import { renderJson } from '../render/json.js';

export interface ResolveCommandOptions {
  root?: string;
  keep?: string;
  note?: string;
  dryRun?: boolean;
  now?: string;
  json?: boolean;
}

/**
 * `memvault resolve <id> --keep a|b|both`: the `resolve` operation
 * (src/ops/resolve.ts), a person's decision about a contradiction recorded in
 * the memories' frontmatter. A normal edit: the next build commits it;
 * nothing is deleted.
 */
export async function resolveCommand(id: string, options: ResolveCommandOptions): Promise<void> {
  const env = await cliEnv(options);
  const { result, detail } = await runOperation(resolveOperation, env, {
    id,
    ...(options.keep !== undefined ? { keep: options.keep } : {}),
    ...(options.note !== undefined ? { note: options.note } : {}),
    ...(options.dryRun ? { dry_run: true } : {}),
  });
  if (options.json) process.stdout.write(renderJson(result));
  else writeText(renderResolution(detail!, options.dryRun === true));
}
