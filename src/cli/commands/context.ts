import { assembleContext, type AssembledContext } from '../../read/context/assemble.js';
import { ACTIVITIES, type Activity } from '../../read/context/budget.js';
import { openContextSearch } from '../../read/context/warm.js';
import { openVault, pickStream } from '../../read/vault.js';
import { recordSources } from '../../usage/log.js';
import { UserError } from '../../util/errors.js';
import { gitBackend } from '../../git/backend.js';
import { findRepo } from '../../git/repo.js';
import { findRoot, resolveNow } from '../context.js';
import { writeText } from '../output.js';

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

/** `memvault context`: the four-tier context for the given signals, within a token budget. Writes nothing but the search index. */
export async function contextCommand(options: ContextCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const budget = options.budget === undefined ? 8000 : Number(options.budget);
  if (!Number.isInteger(budget) || budget < 1)
    throw new UserError('cli/number', `--budget \`${options.budget}\` is not a positive whole number`, { flag: '--budget', example: 8000 });
  if (options.activity !== undefined && !(ACTIVITIES as readonly string[]).includes(options.activity)) {
    throw new UserError('context/activity', `--activity \`${options.activity}\` is not one of ${ACTIVITIES.join(', ')}`);
  }
  const now = resolveNow(options.now);
  const vault = await openVault(root);
  pickStream(vault, options.stream); // an unknown stream is an error before any index work
  // Brought up to date in memory and on disk when the vault changed since the last build (a no-op otherwise).
  const search = openContextSearch(vault);
  const branch = options.branch ?? (await gitBranch(root));
  const result = assembleContext(vault, search, {
    budget,
    now,
    ...(options.stream ? { stream: options.stream } : {}),
    signals: {
      ...(options.query ? { query: options.query } : {}),
      ...(options.file ? { file: options.file } : {}),
      ...(options.error ? { error: options.error } : {}),
      ...(branch ? { branch } : {}),
    },
    ...(options.activity ? { activity: options.activity as Activity } : {}),
  });
  const served = result.items.map((item) => item.source);
  recordSources(root, pickStream(vault, options.stream).name, served, 'cli:context', now);
  if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else writeText(render(result));
}

function render(result: AssembledContext): string {
  return result.context;
}

/**
 * The checked-out branch, through the git backend (the git command, or isomorphic-git where there is none); none
 * outside a repository, on a detached HEAD or when git cannot tell.
 */
async function gitBranch(root: string): Promise<string | undefined> {
  const repo = findRepo(root);
  if (!repo) return undefined;
  try {
    const state = await (await gitBackend()).headState(repo);
    return 'branch' in state ? state.branch : undefined;
  } catch {
    return undefined;
  }
}
