import path from 'node:path';
import type { Config } from '../config/schema.js';
import { pendingPaths, readPending } from '../pipeline/pending.js';
import { RECORD_DIR } from '../store/committed-record.js';

/**
 * What `memvault status` says about uncommitted changes under the vault:
 * those memvault made (its record, pending.ts) and the others (memories a
 * person wrote, files edited by hand), each with the command that commits
 * them. Read-only: git is asked for its status, nothing is written. The
 * lines it prints: `cli/render/uncommitted.ts`.
 */

export interface UncommittedChanges {
  /** Vault-relative paths memvault wrote, copied or moved that differ from HEAD. */
  memvault: string[];
  /** Other vault-relative paths that differ from HEAD (new memories, hand edits). */
  other: string[];
  /** The command that commits memvault's changes. */
  fix: string;
  /** The command that commits the others. */
  fixOther: string;
}

/** The vault's uncommitted changes, or undefined when the vault is not in a git repository. */
export async function uncommittedChanges(root: string, config: Config): Promise<UncommittedChanges | undefined> {
  const { findRepo, repoRelative } = await import('../git/repo.js');
  const vaultDir = path.resolve(root, config.vault);
  const repo = findRepo(vaultDir);
  const prefix = repo ? repoRelative(repo, vaultDir) : undefined;
  if (!repo || prefix === undefined) return undefined;
  const { gitBackend } = await import('../git/backend.js');
  const changed = await (await gitBackend()).changedUnder(repo, prefix);
  return classifyChanges(
    changed.map((file) => (prefix ? file.slice(prefix.length + 1) : file)),
    pendingPaths(readPending(path.join(root, '.memvault'))),
    { vault: path.relative(process.cwd(), vaultDir) || '.', commits: config.git.commit },
  );
}

/**
 * Splits changed vault paths into memvault's (on its record) and the others
 * (pure). `commits`: whether builds commit (`git.commit`); when they do, a
 * build commits memvault's changes, otherwise git does.
 */
export function classifyChanges(
  changed: readonly string[],
  pending: readonly string[],
  options: { vault: string; commits: boolean },
): UncommittedChanges {
  const pendingSet = new Set(pending);
  // The committed record is memvault's wherever it changed: every build in a repository rewrites it, committing or not.
  const ours = { has: (file: string) => pendingSet.has(file) || file.startsWith(`${RECORD_DIR}/`) };
  const memvault = changed.filter((file) => ours.has(file)).sort();
  const other = changed.filter((file) => !ours.has(file)).sort();
  const gitCommit = `git add ${options.vault} && git commit -m "memvault: rollup"`;
  return {
    memvault,
    other,
    fix: options.commits ? 'memvault build' : gitCommit,
    fixOther: `git add ${options.vault} && git commit`,
  };
}
