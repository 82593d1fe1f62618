import { loadValidConfig } from '../../config/load.js';
import { loadVaultWithWorkers, vaultLoadOptions } from '../../pipeline/build-pool.js';
import { leftOutOf } from '../../maintain/left-out.js';
import { maintenanceStatus, readStatusFiles, vaultStatus } from '../../pipeline/status.js';
import { findRoot, resolveNow } from '../context.js';
import { writeText } from '../output.js';
import { renderJson } from '../render/json.js';
import { renderStatus } from '../render/status.js';
import { renderUncommitted } from '../render/uncommitted.js';
import { streamUsage } from '../../usage/rank.js';

export interface StatusCommandOptions {
  root?: string;
  /** Waterfall streams: memories dated after it are not counted yet, as in a build (default: the clock). */
  now?: string;
  json?: boolean;
}

/** `memvault status`: a read-only look at the vault; it takes no lock and writes nothing. The figures come from `vaultStatus`. */
export async function statusCommand(options: StatusCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const config = await loadValidConfig(root);
  const loaded = await loadVaultWithWorkers(vaultLoadOptions(root, config));
  const status = vaultStatus({
    config,
    root,
    state: loaded.state,
    now: resolveNow(options.now),
    files: readStatusFiles(root, config, loaded.state),
  });
  // The most and least used items of each stream, from its usage.json and this clone's log.
  for (const s of status.streams) s.usage = streamUsage(root, status.vault, loaded.state.streams.get(s.name)!);
  // Forgotten memories and marked copies as of `now`, from the same usage counts (a retrieval since the build brings one back).
  const now = resolveNow(options.now);
  for (const s of status.streams)
    s.maintenance = maintenanceStatus(leftOutOf(root, status.vault, config, loaded.state.streams.get(s.name)!, now), config, s.name);
  // Uncommitted vault changes, memvault's and the others, each with the command that commits them.
  const { uncommittedChanges } = await import('../../project/uncommitted.js');
  const uncommitted = await uncommittedChanges(root, config);
  if (options.json) process.stdout.write(renderJson({ ...status, uncommitted: uncommitted ?? null }));
  else
    writeText(
      `${renderStatus(status, config)}${renderUncommitted(uncommitted)
        .map((line) => `${line}\n`)
        .join('')}`,
    );
}
