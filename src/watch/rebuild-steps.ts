import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigInvalidError } from '../config/load.js';
import { UserError } from '../util/errors.js';
import type { LoadSession } from '../load/load-session.js';
import type { WatchEvent } from './events.js';
import { watchLimitError } from './fs-watch.js';
import type { Change } from './paths.js';

/**
 * Two stages of one rebuild of `memvault watch` (watcher.ts runs them): what
 * the reported paths changed, before the build, and the event a failed build
 * reports, after it.
 */

/**
 * The files a batch of reported paths changed, each invalidated in the
 * session. A folder stands for the files in it (then and now); echoes of our
 * own writes and saves that did not change a byte are dropped.
 */
export function collectChanges(session: LoadSession, vaultDir: string, batch: ReadonlyMap<string, 'file' | 'folder'>): Map<string, Change> {
  const changes = new Map<string, Change>();
  const files = new Set<string>();
  for (const [file, kind] of batch) {
    if (kind === 'folder') for (const inside of session.filesUnder(file)) files.add(inside);
    else files.add(file);
  }
  for (const file of [...files].sort()) {
    if (session.isUnchanged(file)) continue;
    const exists = existsSync(path.join(vaultDir, file));
    changes.set(file, !exists ? 'deleted' : session.knows(file) ? 'changed' : 'added');
    session.invalidate([file]);
  }
  return changes;
}

/** The `error` event of a rebuild that threw (other than a busy lock): a person's problem with its hint, or a bug. */
export function failureEvent(error: unknown, trigger: string): WatchEvent {
  const diagnostics = error instanceof ConfigInvalidError ? error.diagnostics : [];
  const at = new Date().toISOString();
  if (error instanceof UserError)
    return { type: 'error', at, trigger, message: error.message, ...(error.hint ? { hint: error.hint } : {}), diagnostics };
  return {
    type: 'error',
    at,
    trigger,
    message: `internal error: ${error instanceof Error ? (process.env.MEMVAULT_DEBUG ? error.stack : error.message) : String(error)}`,
    hint: 'this is a bug; the last outputs stay in place',
    diagnostics,
  };
}

/** The `note` event of a file-watcher error: the known limit (too many watched files) with its hint, else the message. */
export function watchErrorEvent(error: unknown): WatchEvent {
  const known = watchLimitError(error);
  return {
    type: 'note',
    at: new Date().toISOString(),
    message: known ? `${known.message} (hint: ${known.hint})` : `file watcher: ${error instanceof Error ? error.message : String(error)}`,
  };
}
