import { currentBranch } from '../ops/branch.js';
import type { OpsEnv } from '../ops/operation.js';
import type { WarmVault } from './warm.js';

/**
 * The operations' view of the project in the MCP server: the warm vault and
 * its search index, kept current by the file watcher, and the server's clock
 * (`MEMVAULT_NOW` or the wall clock, read per call).
 */
export function warmEnv(warm: WarmVault, now: () => Date): OpsEnv {
  return {
    root: warm.root,
    cwd: warm.root,
    via: 'mcp',
    now,
    config: async () => (await warm.current()).vault.config,
    vault: async () => (await warm.current()).vault,
    contextSearch: async () => ({ index: (await warm.current()).index }),
    search: () => warm.search(),
    branch: () => currentBranch(warm.root),
    // The next request sees what this process wrote without waiting for the file watcher.
    wrote: (paths) => warm.invalidate(paths),
  };
}
