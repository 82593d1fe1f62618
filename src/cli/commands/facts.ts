import { factsOperation } from '../../ops/facts.js';
import { runOperation } from '../../ops/operation.js';
import { openVault, pickStream } from '../../read/vault.js';
import { formatDiagnostic } from '../../messages/diagnostic.js';
import { UserError } from '../../util/errors.js';
import { findRoot } from '../context.js';
import { cliEnv } from '../ops-env.js';
import { writeText } from '../output.js';
import { renderFacts } from '../render/facts.js';
import { factsCheckJson, renderFactsCheck } from '../render/facts-check.js';
import { renderJson } from '../render/json.js';

/** Least time between two progress lines of `--check` on stderr: a short check prints none. */
const PROGRESS_EVERY_MS = 2000;

export interface FactsCommandOptions {
  root?: string;
  stream?: string;
  key?: string;
  scope?: string;
  at?: string;
  all?: boolean;
  now?: string;
  json?: boolean;
  /** Ask the model of the active LLM profile about pairs of decisions on one subject (see `factsCheck`). */
  check?: boolean;
  maxPairs?: string;
}

/** `memvault facts`: the `facts` operation (src/ops/facts.ts), what holds on a day, each key's history, and the open contradictions. Read-only. */
export async function factsCommand(options: FactsCommandOptions): Promise<void> {
  if (options.check) {
    await factsCheck(findRoot(options.root ?? process.cwd()), options);
    return;
  }
  const env = await cliEnv(options);
  const { result, detail } = await runOperation(factsOperation, env, {
    ...(options.key !== undefined ? { key: options.key } : {}),
    ...(options.scope !== undefined ? { scope: options.scope } : {}),
    ...(options.at !== undefined ? { at: options.at } : {}),
    ...(options.all ? { all: true } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
  });
  if (options.json) process.stdout.write(renderJson(result));
  else writeText(renderFacts(detail!));
}

/**
 * `memvault facts --check [--max-pairs N] [--stream S] [--json]`: pairs of
 * decisions and facts on one subject that the model of the active LLM
 * profile judges contradicting, for a person to confirm. Writes only its
 * answer cache (`.memvault/facts-check.json`) and the search index a build
 * would write. A fault that stops every later request (bad key, unknown
 * model, unreachable server) prints what was found, then fails.
 */
async function factsCheck(root: string, options: { stream?: string; maxPairs?: string; json?: boolean; now?: string }): Promise<void> {
  // Loaded only for --check: it brings the search index and the LLM transport.
  const { DEFAULT_MAX_PAIRS, runFactsCheck } = await import('../../facts-check/check.js');
  const maxPairs = options.maxPairs === undefined ? DEFAULT_MAX_PAIRS : Number(options.maxPairs);
  if (!Number.isInteger(maxPairs) || maxPairs < 1)
    throw new UserError('cli/number', `--max-pairs \`${options.maxPairs}\` is not a positive whole number`, {
      flag: '--max-pairs',
      example: 20,
    });
  const vault = await openVault(root);
  const streams = options.stream ? [pickStream(vault, options.stream).name] : undefined;
  let last = Date.now();
  const report = await runFactsCheck(vault, {
    maxPairs,
    ...(streams ? { streams } : {}),
    progress: (done, total) => {
      if (done === total || Date.now() - last < PROGRESS_EVERY_MS) return;
      last = Date.now();
      process.stderr.write(`memvault: facts --check ${done}/${total} pairs\n`);
    },
  });
  for (const problem of report.problems) process.stderr.write(`${formatDiagnostic(problem)}\n`);
  if (options.json) process.stdout.write(renderJson(factsCheckJson(report)));
  else writeText(renderFactsCheck(report));
  if (report.stopped) {
    const reason = `facts --check stopped after ${report.checked} of ${report.selected} pairs: ${report.stopped}`;
    throw new UserError(
      'llm/failed',
      reason,
      {},
      { hint: 'check the server, the model name and the key of the profile; answers so far are cached' },
    );
  }
}
