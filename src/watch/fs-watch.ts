import type { Stats } from 'node:fs';
import path from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { UserError } from '../util/errors.js';

/** chokidar, started and failed the way `memvault watch` needs. */

export function startWatcher(
  dir: string,
  options: { depth?: number; ignored: (file: string, stats?: Stats) => boolean },
  onWatchError?: (error: unknown) => void,
): Promise<FSWatcher> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir, { ignoreInitial: true, followSymlinks: false, ...options });
    let ready = false;
    watcher.once('ready', () => {
      ready = true;
      resolve(watcher);
    });
    // After start-up a watcher error (a folder that became unreadable) is not fatal: chokidar keeps the other watches.
    watcher.on('error', (error) => {
      if (!ready) reject(watchLimitError(error) ?? error);
      else onWatchError?.(error);
    });
  });
}

/** chokidar watches every file (one inotify watch each on Linux): a big vault can hit the system's limit. */
export function watchLimitError(error: unknown): UserError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'ENOSPC' && code !== 'EMFILE') return undefined;
  const how = code === 'ENOSPC' ? 'e.g. `sudo sysctl fs.inotify.max_user_watches=524288`' : 'the open-file limit: `ulimit -n 65536`';
  return new UserError('watch/limit', `the system limit of file watches was reached (${code})`, { how });
}

export function toPosix(file: string): string {
  return path.sep === '/' ? file : file.split(path.sep).join('/');
}
