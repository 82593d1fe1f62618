import { logOperation } from '../../ops/history.js';
import { cliNumber } from '../../ops/input.js';
import { runOperation } from '../../ops/operation.js';
import { cliEnv } from '../ops-env.js';
import { writeText } from '../output.js';
import { renderJson } from '../render/json.js';

export type { LogEntry } from '../../ops/history.js';

export interface LogCommandOptions {
  root?: string;
  json?: boolean;
  /** Show at most this many versions (newest first). */
  limit?: string;
}

/** `memvault log PATH`: the `log` operation (src/ops/history.ts), the commits that changed a file, newest first, with the summary's generator in each. */
export async function logCommand(file: string, options: LogCommandOptions): Promise<void> {
  const env = await cliEnv(options);
  const { result, detail } = await runOperation(logOperation, env, {
    path: file,
    ...(options.limit !== undefined ? { limit: cliNumber(options.limit) } : {}),
  });
  if (options.json) {
    process.stdout.write(renderJson(result));
    return;
  }
  const lines = result.versions.map((entry, i) => {
    const where = entry.path !== result.path ? ` (${entry.change === 'deleted' ? 'was' : 'at'} ${entry.path})` : '';
    const generator = entry.generator ? `  [${entry.generator.provider}/${entry.generator.model}, ${entry.generator.prompt}]` : '';
    return `${entry.commit.slice(0, 7)}  ${detail!.times[i]}  ${entry.change.padEnd(8)} ${entry.subject}${generator}${where}`;
  });
  writeText(`${result.path}: ${result.versions.length} version(s), newest first\n${lines.join('\n')}\n`);
}
