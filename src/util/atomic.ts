import { closeSync, fsyncSync, lstatSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ensureInsideProject } from './inside.js';
import { assertLockHeld } from './lock-state.js';
import { isAlive } from './process.js';

let counter = 0;

/** `.<name>.<pid>.<n>.tmp`: the temporary files `writeFileAtomic` leaves if the process is killed before the rename. */
const TEMP_NAME = /^\..+\.(\d+)\.\d+\.tmp$/;
/** A temporary file of a live process is renamed within milliseconds; one this old belongs to nobody (a reused pid). */
const TEMP_ORPHAN_MS = 10 * 60_000;

/**
 * Writes a file atomically: the content goes to a temporary file beside the
 * target, is flushed, then renamed over it. A crash leaves either the old or
 * the new file, never a half-written one (but possibly the temporary file:
 * see `removeStaleTempFiles`). Refuses to write once this process lost the
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
 * Removes the temporary files of `writeFileAtomic` left in `dirs` (not
 * recursive) by a process killed before its rename: those whose pid is not
 * alive, or that are older than ten minutes. Returns their paths. Folders
 * that do not exist, are links or lead out of the project are skipped.
 */
export function removeStaleTempFiles(dirs: Iterable<string>): string[] {
  const removed: string[] = [];
  for (const dir of new Set(dirs)) {
    let names: string[];
    try {
      // Never through a link: a linked folder is refused by every writer, and its files are not ours.
      if (lstatSync(dir).isSymbolicLink()) continue;
      ensureInsideProject(dir);
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = TEMP_NAME.exec(name);
      if (!match) continue;
      const file = path.join(dir, name);
      try {
        const stat = statSync(file);
        if (!stat.isFile()) continue;
        const pid = Number(match[1]);
        if (pid !== process.pid && isAlive(pid) && Date.now() - stat.mtimeMs < TEMP_ORPHAN_MS) continue;
        if (pid === process.pid && Date.now() - stat.mtimeMs < TEMP_ORPHAN_MS) continue;
        rmSync(file, { force: true });
        removed.push(file);
      } catch {
        // Gone meanwhile (its writer renamed it): nothing to remove.
      }
    }
  }
  return removed;
}
