import { runOperation } from '../../ops/operation.js';
import { statusOperation } from '../../ops/status.js';
import { cliEnv } from '../ops-env.js';
import { writeText } from '../output.js';
import { renderJson } from '../render/json.js';
import { renderStatus } from '../render/status.js';
import { renderUncommitted } from '../render/uncommitted.js';

export interface StatusCommandOptions {
  root?: string;
  /** Only this stream. */
  stream?: string;
  /** Waterfall streams: memories dated after it are not counted yet, as in a build (default: the clock). */
  now?: string;
  json?: boolean;
}

/** `memvault status`: the `status` operation (src/ops/status.ts); a read-only look at the vault that takes no lock. */
export async function statusCommand(options: StatusCommandOptions): Promise<void> {
  const env = await cliEnv(options);
  const { result, detail } = await runOperation(statusOperation, env, options.stream !== undefined ? { stream: options.stream } : {});
  if (options.json) process.stdout.write(renderJson(result));
  else
    writeText(
      `${renderStatus(detail!.status, detail!.config)}${renderUncommitted(detail!.changes)
        .map((line) => `${line}\n`)
        .join('')}`,
    );
}
