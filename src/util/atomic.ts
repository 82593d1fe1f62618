import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ensureInsideProject } from './inside.js';
import { assertLockHeld } from './lock-state.js';
import { isAlive } from './process.js';

let counter = 0;

/**
 * `.<name>.<pid>.<n>.tmp`: the temporary files `writeFileAtomic` leaves if the process is killed before the rename, and
 * `add`'s `.memvault-new.<pid>.<n>.tmp` (ingest/writer.ts) before its link.
 */
const TEMP_NAME = /^\..+\.(\d+)\.\d+\.tmp$/;
/** `<name>.<pid>.tmp`: the config and session-start caches' temporary files (config/cached.ts, hooks/start-cache.ts). */
const STATE_TEMP_NAME = /^[^.].*\.(\d+)\.tmp$/;
/** The parse cache's compaction (vault/cache.ts): no pid in the name, written only under the build lock. */
const LOCKED_TEMP_NAMES = new Set(['content.pack.tmp']);
/** A temporary file of a live process is renamed within milliseconds; one this old belongs to nobody (a reused pid). */
const TEMP_ORPHAN_MS = 10 * 60_000;

/**
 * Whether `name` is a temporary file name of one of memvault's writers, and the pid that owns it (`null`: a name
 * without a pid, only ever written under the build lock). The state folder's own names (`stateFolder`) are recognized
 * only there: in the vault, `notes.2024.tmp` may be a person's file.
 */
export function tempFileOwner(name: string, stateFolder = false): { pid: number | null } | undefined {
  const match = TEMP_NAME.exec(name) ?? (stateFolder ? STATE_TEMP_NAME.exec(name) : null);
  if (match) return { pid: Number(match[1]) };
  return stateFolder && LOCKED_TEMP_NAMES.has(name) ? { pid: null } : undefined;
}

/** Whether a vault path names a temporary file of `writeFileAtomic` or `add`: such a path is never committed. */
export function isTempPath(vaultPath: string): boolean {
  return TEMP_NAME.test(vaultPath.slice(vaultPath.lastIndexOf('/') + 1));
}

/**
 * Writes a file atomically: the content goes to a temporary file beside the
 * target, is flushed, then renamed over it. A crash leaves either the old or
 * the new file, never a half-written one (but possibly the temporary file:
 * see `removeIfStaleTemp`). Refuses to write once this process lost the
 * build lock it held, and outside the project (`project/outside`: a folder on
 * the way that is a symbolic link out of it).
 */
export function writeFileAtomic(file: string, content: string | Uint8Array, options: { fsync?: boolean } = {}): void {
  assertLockHeld();
  ensureInsideProject(file);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${counter++}.tmp`);
  // A file, or a committed link, already at the temporary name is removed, never written through: `wx` creates a new file.
  rmSync(temp, { force: true });
  const fd = openSync(temp, 'wx');
  try {
    writeSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    if (options.fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Removes `dir/name` if it is a temporary file of a writer that is gone: its
 * pid is not alive, or it is older than ten minutes; a name without a pid is
 * written only under the build lock, which the caller holds, so it is always
 * a leftover. `kept`: a live writer's (it may be removed later); undefined:
 * not a temporary file.
 */
export function removeIfStaleTemp(dir: string, name: string, stateFolder = false): 'removed' | 'kept' | undefined {
  // Most names are memories and summaries: one string test before the patterns.
  if (!name.endsWith('.tmp')) return undefined;
  const owner = tempFileOwner(name, stateFolder);
  if (!owner) return undefined;
  const file = path.join(dir, name);
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return undefined;
    const young = Date.now() - stat.mtimeMs < TEMP_ORPHAN_MS;
    if (owner.pid !== null && young && (owner.pid === process.pid || isAlive(owner.pid))) return 'kept';
    rmSync(file, { force: true });
    return 'removed';
  } catch {
    return undefined; // gone meanwhile (its writer renamed it): nothing to remove
  }
}
