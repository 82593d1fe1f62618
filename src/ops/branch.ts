/**
 * The checked-out branch of the project, a context signal: through the git
 * backend (the git command, or isomorphic-git where there is none); none
 * outside a repository, on a detached HEAD or when git cannot tell. The git
 * code is loaded on first use.
 */
export async function currentBranch(root: string): Promise<string | undefined> {
  const { findRepo } = await import('../git/repo.js');
  const repo = findRepo(root);
  if (!repo) return undefined;
  try {
    const { gitBackend } = await import('../git/backend.js');
    const state = await (await gitBackend()).headState(repo);
    return 'branch' in state ? state.branch : undefined;
  } catch {
    return undefined;
  }
}
