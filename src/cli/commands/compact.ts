import { findRoot, resolveNow } from '../context.js';
import { renderCompactReport } from '../render/compact.js';
import { renderJson } from '../render/json.js';

export interface CompactCommandOptions {
  root?: string;
  stream?: string;
  force?: boolean;
  rebuild?: boolean;
  now?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** `memvault compact`: the waterfall of the agent streams now (`--force`: whatever the count), without the calendar rollups. */
export async function compactCommand(options: CompactCommandOptions): Promise<void> {
  const root = findRoot(options.root ?? process.cwd());
  const { compactVault } = await import('../../pipeline/waterfall/compact.js');
  const report = await compactVault({
    root,
    now: resolveNow(options.now),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
    force: options.force ?? false,
    rebuild: options.rebuild ?? false,
    dryRun: options.dryRun ?? false,
  });
  process.stdout.write(
    options.json ? renderJson(report) : renderCompactReport(report, { force: options.force ?? false, rebuild: options.rebuild ?? false }),
  );
}
