import path from 'node:path';
import { openVault, readConfig } from '../../read/vault.js';
import { buildSite } from '../../site/site.js';
import { todayIn } from '../../time/periods.js';
import { UserError } from '../../util/errors.js';
import { findRoot, resolveNow } from '../context.js';
import { writeText } from '../output.js';

export interface SiteCommandOptions {
  root?: string;
  out?: string;
  now?: string;
  json?: boolean;
}

/** `memvault site [--out site/]`: the vault as a static site; only pages whose inputs changed are written. */
export async function siteCommand(options: SiteCommandOptions): Promise<void> {
  const started = performance.now();
  const root = findRoot(options.root ?? process.cwd());
  const vaultDir = path.resolve(root, (await readConfig(root)).vault);
  const outDir = path.resolve(root, options.out ?? 'site');
  const inside = (dir: string, parent: string) => dir === parent || dir.startsWith(`${parent}${path.sep}`);
  // The site is derived output: inside the vault it would be read back as vault files; like every write of memvault it
  // stays inside the project (util/inside.ts).
  if (inside(outDir, vaultDir) || inside(vaultDir, outDir) || !inside(outDir, path.resolve(root)) || outDir === path.resolve(root))
    throw new UserError('cli/out', `--out \`${options.out ?? 'site'}\` must be a folder of its own inside the project, outside the vault`);
  const vault = await openVault(root);
  const today = todayIn(resolveNow(options.now), vault.config.timezone);
  const result = buildSite(vault, outDir, today);
  const seconds = (performance.now() - started) / 1000;
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ out: result.outDir, pages: result.pages, written: result.written, removed: result.removed, seconds }, null, 2)}\n`,
    );
    return;
  }
  const relative = path.relative(process.cwd(), path.join(result.outDir, 'index.html')) || 'index.html';
  writeText(
    `${result.written.length} of ${result.pages} pages written, ${result.removed.length} removed, ${seconds.toFixed(2)} s\n` +
      `open ${relative} (works from file://)\n`,
  );
}
