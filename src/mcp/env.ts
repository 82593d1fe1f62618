import { currentBranch } from '../ops/branch.js';
import type { OpsEnv } from '../ops/operation.js';
import type { WarmVault } from './warm.js';

/**
 * The operations' view of the project in the MCP server: the warm vault and
 * its search index, kept current by the file watcher, and the server's clock
 * (`MEMVAULT_NOW` or the wall clock, read per call).
 */
/** How long the server keeps the checked-out branch before asking git again. */
const BRANCH_KEPT_MS = 5000;

export function warmEnv(warm: WarmVault, now: () => Date): OpsEnv {
  // The branch is asked of git (a process) at most every few seconds, not on every context call.
  let branch: { at: number; name: Promise<string | undefined> } | undefined;
  const currentBranchKept = (): Promise<string | undefined> => {
    if (!branch || Date.now() - branch.at > BRANCH_KEPT_MS) branch = { at: Date.now(), name: currentBranch(warm.root) };
    return branch.name;
  };
  return {
    root: warm.root,
    cwd: warm.root,
    via: 'mcp',
    now,
    config: async () => (await warm.current()).vault.config,
    vault: async () => (await warm.current()).vault,
    contextSearch: async () => ({ index: (await warm.current()).index }),
    search: () => warm.search(),
    branch: currentBranchKept,
    // The next request sees what this process wrote without waiting for the file watcher.
    wrote: (paths) => warm.invalidate(paths),
  };
}
