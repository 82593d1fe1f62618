import { showOperation } from '../../ops/history.js';
import { runOperation } from '../../ops/operation.js';
import { cliEnv } from '../ops-env.js';
import { writeText } from '../output.js';

export interface ShowCommandOptions {
  root?: string;
  /** A date (`2026-02-13`, an ISO datetime) or a revision (commit id, HEAD~2, branch, tag). Default HEAD. */
  at?: string;
}

/** `memvault show PATH --at DATE|REV`: the `show` operation (src/ops/history.ts), a file's content as it was committed then. */
export async function showCommand(file: string, options: ShowCommandOptions): Promise<void> {
  const env = await cliEnv(options);
  const { result } = await runOperation(showOperation, env, { path: file, ...(options.at !== undefined ? { at: options.at } : {}) });
  // Into a file or pipe the bytes are the committed file's, so `show … > file` restores it exactly; on a terminal
  // its control characters are made visible like every other command's vault text (`writeText`).
  if (process.stdout.isTTY) writeText(result.text);
  else process.stdout.write(result.text);
}
