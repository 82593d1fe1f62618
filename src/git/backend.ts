import { execFileSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import type { GitBackend } from './backend-api.js';

/**
 * What memvault needs from git, behind one small interface with two
 * implementations: the git command (cli-backend.ts), used whenever `git` is
 * on PATH, so git's own filters, attributes, locks, config includes and
 * object formats apply; and isomorphic-git (iso-backend.ts) where no git
 * binary exists. Neither reads or writes git objects, packs or the index by
 * hand.
 */

export type { GitBackend, Signature, Staging, TreeFile } from './backend-api.js';
export { formatOffset, localOffsetMinutes } from './backend-api.js';

let detected: 'cli' | 'isomorphic' | undefined;

/**
 * The backend for this process: `MEMVAULT_GIT_BACKEND=cli|isomorphic` in `env`
 * forces one; otherwise the git command when an executable `git` is on PATH
 * (or, failing that, `git --version` runs), else isomorphic-git. Detected once
 * per process. A build hands its `env` option (default `process.env`) to every
 * call, so a test picks the backend of an in-process build with
 * `build({ env })`, as it picks the LLM, without touching `process.env`.
 */
export async function gitBackend(env: NodeJS.ProcessEnv = process.env): Promise<GitBackend> {
  const forced = env.MEMVAULT_GIT_BACKEND;
  if (forced && forced !== 'cli' && forced !== 'isomorphic') {
    throw new UserError('git/backend', `MEMVAULT_GIT_BACKEND is "${forced}"`);
  }
  const kind = forced || (detected ??= hasGitBinary() ? 'cli' : 'isomorphic');
  return kind === 'cli' ? (await import('./cli-backend.js')).cliBackend : (await import('./iso-backend.js')).isoBackend;
}

function hasGitBinary(): boolean {
  // An executable `git` on PATH is what spawning `git` runs: found without starting a process (~10-25 ms of CPU each).
  // Elsewhere (Windows' PATHEXT, an unusual PATH) `git --version` decides.
  if (process.platform !== 'win32' && gitOnPath(process.env.PATH ?? '')) return true;
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

function gitOnPath(searchPath: string): boolean {
  return searchPath.split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      const file = path.join(dir, 'git');
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
