import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { ensureInside, setProjectRoot } from '../util/inside.js';

/**
 * Where a project's config lives. Kept apart from `load.ts` (yaml + zod,
 * ~100 ms to import) so the CLI can find the project before loading them.
 */
export const CONFIG_FILE = 'memory.config.yaml';
/** The project's local, never committed state: parse cache, search index, locks, usage log. */
export const STATE_DIR = '.memvault';

/** The nearest folder from `start` upwards holding `memory.config.yaml`; undefined when there is none. */
export function findProjectRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, CONFIG_FILE))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The project root: the nearest folder upwards holding `memory.config.yaml`.
 * Every command but `init` starts here, so none of them reads, creates or
 * commits a vault outside a project: a missing folder (`-C /typo`) and a
 * folder with no config here or above are user errors, and nothing is written.
 *
 * @example
 *   findRoot(process.cwd()); // '/home/ana/notes' when /home/ana/notes/memory.config.yaml exists
 */
export function findRoot(start: string): string {
  const resolved = path.resolve(start);
  if (!isFolder(resolved)) throw new UserError('project/folder', `\`${start}\` is not a folder (-C takes the project folder)`);
  const root = findProjectRoot(resolved);
  if (root === undefined) {
    throw new UserError('project/none', `not a memvault project (no ${CONFIG_FILE} here or above): run \`memvault init\``);
  }
  checkStateFolder(root);
  return root;
}

/**
 * The project of a CLI command: `findRoot`, and every write of this process
 * is held inside that folder from now on (`writeFileAtomic` and the vault
 * writers refuse a path that a symbolic link leads out of it).
 */
export function enterProject(start: string): string {
  const root = findRoot(start);
  setProjectRoot(root);
  return root;
}

/**
 * Local state (caches, the search index, locks) lives in `.memvault/`: a file of that name would fail every command
 * deep inside, and a link out of the project (committed, say) would put the caches and locks wherever it points.
 */
function checkStateFolder(root: string): void {
  const state = path.join(root, STATE_DIR);
  if (existsSync(state) && !isFolder(state)) {
    throw new UserError('project/state', `\`${state}\` is a file, not a folder`);
  }
  ensureInside(root, state);
}

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
