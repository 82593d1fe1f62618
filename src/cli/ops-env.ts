import { loadValidConfigCached } from '../config/cached.js';
import { currentBranch } from '../ops/branch.js';
import type { OpsEnv } from '../ops/operation.js';
import type { SearchSession } from '../read/search.js';
import type { ReadVault } from '../read/vault.js';
import { enterProject } from '../config/file.js';
import { nowOf } from './now.js';

/**
 * What an operation reads the project through, for one CLI command: the
 * project found from `-C` or the working folder, the clock from `--now` /
 * `MEMVAULT_NOW`, and the vault and search index opened on first use. The
 * loaders are imported then too: a search that finds its index never loads
 * the vault, `add` never loads the search engine.
 */
export async function cliEnv(options: { root?: string; now?: string }): Promise<OpsEnv> {
  const root = enterProject(options.root ?? process.cwd());
  // The calendar code that checks a pinned `--now` is loaded only when one is given (a search starts fast).
  const now = await nowOf(options.now);
  let vault: Promise<ReadVault> | undefined;
  let search: Promise<SearchSession> | undefined;
  return {
    root,
    cwd: process.cwd(),
    via: 'cli',
    now: () => now,
    config: () => loadValidConfigCached(root),
    vault: () => {
      vault ??= import('../read/vault.js').then(({ openVault }) => openVault(root));
      return vault;
    },
    // Brought up to date in memory and on disk when the vault changed since the last build (a no-op otherwise).
    contextSearch: async (opened) => (await import('../read/context/warm.js')).openContextSearch(opened),
    search: (searchOptions = {}) => {
      search ??= import('../read/search.js').then(({ openSearch }) => openSearch(root, searchOptions));
      return search;
    },
    branch: () => currentBranch(root),
    wrote: () => {},
  };
}
