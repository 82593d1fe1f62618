import path from 'node:path';
import { planConsolidation } from '../../maintain/consolidate.js';
import { DUPLICATE_THRESHOLD } from '../../maintain/duplicates.js';
import { openVault, pickStream } from '../../read/vault.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { UserError } from '../../util/errors.js';
import { setFrontmatterValue } from '../../vault/frontmatter-edit.js';
import { readVaultFile } from '../../vault/scan.js';
import { findRoot } from '../context.js';
import { renderJson } from '../render/json.js';
import { renderConsolidation } from '../render/maintain.js';

export interface ConsolidateCommandOptions {
  root?: string;
  stream?: string;
  threshold?: string;
  apply?: boolean;
  json?: boolean;
}

/** `memvault consolidate`: reports near-duplicate memories; `--apply` marks the extra copies `duplicate_of`. */
export async function consolidateCommand(options: ConsolidateCommandOptions): Promise<void> {
  const threshold = options.threshold === undefined ? DUPLICATE_THRESHOLD : Number(options.threshold);
  if (!(threshold > 0 && threshold <= 1)) {
    throw new UserError('cli/threshold', `--threshold \`${options.threshold}\` is not a number in (0, 1]`, {
      example: DUPLICATE_THRESHOLD,
    });
  }
  const root = findRoot(options.root ?? process.cwd());
  const vault = await openVault(root);
  const streams = options.stream ? [pickStream(vault, options.stream)] : [...vault.loaded.state.streams.values()];
  const plans = streams.map((stream) => planConsolidation(vault.vaultDir, stream.name, stream.memories, threshold));
  // Every edit is made in memory first: a file that cannot be edited leaves all of them as they were.
  const writes = options.apply
    ? plans.flatMap((plan) =>
        plan.groups.flatMap((group) =>
          group.duplicates.map((duplicate) => {
            const read = readVaultFile(vault.vaultDir, duplicate.path);
            if (!read.ok) throw new UserError('fact/frontmatter', `${duplicate.path} cannot be read (${read.diagnostic.reason})`, {});
            return {
              file: path.join(vault.vaultDir, duplicate.path),
              text: setFrontmatterValue(read.bytes.toString('utf8'), 'duplicate_of', group.keep.id),
            };
          }),
        ),
      )
    : [];
  for (const write of writes) writeFileAtomic(write.file, write.text);
  if (options.json) {
    process.stdout.write(renderJson({ applied: options.apply === true, threshold, streams: plans }));
    return;
  }
  process.stdout.write(renderConsolidation(plans, options.apply === true));
}
