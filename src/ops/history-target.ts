import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadValidConfig } from '../config/load.js';
import { UserError } from '../util/errors.js';
import { FileHistory } from '../git/history.js';
import fs from 'node:fs';
import git from 'isomorphic-git';
import { gitBackend } from '../git/backend.js';
import { findRepo, repoRelative, type Repo } from '../git/repo.js';

/**
 * The file a history command (`memvault log|diff|show`) is about: the
 * repository, HEAD, and the path inside the repository. A path is taken
 * relative to the current folder, like git does; a path relative to the
 * vault (`main/daily/2026-02-13.md`, as build reports print them) works too.
 */
export interface HistoryTarget {
  repo: Repo;
  history: FileHistory;
  head: string;
  /** Repository-relative path. */
  repoPath: string;
  /** Time zone for dates (`timezone` of memory.config.yaml). */
  zone: string;
}

/** Resolves the path argument of a history command, or throws a UserError with a hint. */
export async function openHistoryTarget(file: string, options: { root: string; cwd: string }): Promise<HistoryTarget> {
  const config = await loadValidConfig(options.root);
  const zone = config.timezone;
  const vaultDir = path.resolve(options.root, config.vault);
  const repo = findRepo(vaultDir) ?? findRepo(options.root);
  if (!repo) throw new UserError('git/not-a-repo', `${options.root} is not in a git repository, so there is no history`);
  // The history commands read objects through isomorphic-git (fast enough for one file's versions), which knows SHA-1 only.
  const format = await git.getConfig({ fs, gitdir: repo.gitdir, path: 'extensions.objectformat' });
  if (typeof format === 'string' && format.toLowerCase() !== 'sha1') {
    const reason = `${repo.dir} is a ${format.toUpperCase()} git repository; memvault log, diff and show read SHA-1 repositories only`;
    throw new UserError('git/history-format', reason, { file });
  }
  const state = await (await gitBackend()).headState(repo);
  const head = 'detached' in state ? state.detached : state.oid;
  if (!head) throw new UserError('git/no-commits', `the branch \`${'branch' in state ? state.branch : ''}\` has no commits yet`);
  const history = new FileHistory(repo, repoRelative(repo, vaultDir));

  const candidates = [path.resolve(options.cwd, file), path.resolve(vaultDir, file)];
  const inRepo = candidates.map((absolute) => repoRelative(repo, absolute)).filter((p): p is string => p !== undefined);
  if (inRepo.length === 0) throw new UserError('git/outside', `\`${file}\` is outside the repository ${repo.dir}`);
  for (const repoPath of inRepo) {
    if ((await history.locate(head, repoPath)) || (await history.versions(head, repoPath)).length > 0)
      return { repo, history, head, repoPath, zone };
  }
  const onDisk = candidates.some((absolute) => existsSync(absolute));
  throw new UserError(onDisk ? 'git/uncommitted' : 'git/unknown-path', `\`${file}\` has no committed version`);
}
