import path from 'node:path';
import { loadConfig } from '../config/load.js';
import { commitPaths, openCommitSession } from '../git/commit.js';
import { UserError } from '../util/errors.js';
import { acquireBuildLock } from '../util/lock.js';
import { uncommittedRecord } from '../store/committed-record-write.js';
import type { WatchEvent } from './events.js';
import { counted } from '../text/plural.js';

/** `watch --commit-every`: what the rebuilds wrote since the last commit, committed at once. */

export interface CommitBatchInput {
  root: string;
  vaultDir: string;
  /** Vault paths written or changed since the last commit, sorted. */
  paths: string[];
  /** What each rebuild made, named for people. */
  rebuilds: string[][];
  now: Date;
}

/**
 * Commits a batch under the build lock. `done`: the batch is settled
 * (committed, or commits are off); otherwise it is kept for the next try (an
 * invalid config, another build holding the lock, a rebase in progress…).
 */
export async function commitBatch(input: CommitBatchInput): Promise<{ done: boolean; event?: WatchEvent }> {
  const at = new Date().toISOString();
  try {
    const { config, errors } = await loadConfig(input.root);
    if (errors.length > 0) return { done: false }; // reported by the rebuild loop; commit once the config is fixed
    const stateDir = path.join(input.root, '.memvault');
    const release = await acquireBuildLock(stateDir, 'memvault watch (commit)');
    try {
      const session = await openCommitSession({ vaultDir: input.vaultDir, stateDir, enabled: true, author: config.git.author });
      if ('status' in session) return { done: true, event: { type: 'note', at, message: session.note } };
      // The committed record's shards the rebuilds rewrote (they write it, never list it): committed with the batch, as a build does.
      const record = config.git.record ? await uncommittedRecord(input.vaultDir) : [];
      const outcome = await commitPaths(session, {
        paths: [...new Set([...input.paths, ...record])].sort(),
        pinned: new Map(),
        keep: new Set(),
        message: watchCommitMessage(input.rebuilds),
        now: input.now,
      });
      if (outcome.status !== 'committed') return { done: true };
      const message = `committed ${outcome.oid.slice(0, 7)} on ${outcome.branch}: ${outcome.message.split('\n')[0]} (${counted(outcome.files.length, 'file')})`;
      return { done: true, event: { type: 'note', at, message } };
    } finally {
      await release();
    }
  } catch (error) {
    // Kept for the next try (another build holds the lock, a rebase is in progress, the branch moved…).
    const message = error instanceof Error ? error.message : String(error);
    return {
      done: false,
      event: {
        type: 'error',
        at,
        trigger: 'commit',
        message: `not committed: ${message}`,
        ...(error instanceof UserError && error.hint ? { hint: error.hint } : { hint: 'the files stay written; the next commit retries' }),
        diagnostics: [],
      },
    };
  }
}

/** `memvault: watch — 4 rebuilds (daily 2026-02-13, weekly 2026-W07, package main)`, then one line per rebuild. */
export function watchCommitMessage(rebuilds: readonly string[][]): string {
  const outputs = [...new Set(rebuilds.flat())];
  const named = outputs.length > 0 ? ` (${outputs.slice(0, 4).join(', ')}${outputs.length > 4 ? ', …' : ''})` : '';
  const subject = `memvault: watch — ${rebuilds.length} rebuild${rebuilds.length === 1 ? '' : 's'}${named}`;
  return [subject, '', ...rebuilds.map((outputs) => `- ${outputs.join(', ') || 'memories changed'}`)].join('\n');
}
