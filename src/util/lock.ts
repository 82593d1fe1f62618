import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { UserError } from './errors.js';

interface Owner {
  pid: number;
  started: string;
  command: string;
}

/**
 * Takes the build lock of a project (`.memvault/build.lock`) so two builds
 * (say `watch` and a nightly job) never write the same vault at once. A lock
 * whose owner process is gone, or that was not refreshed for 30 s, is taken
 * over. Returns the function that releases it.
 */
export async function acquireBuildLock(stateDir: string, command: string): Promise<() => Promise<void>> {
  mkdirSync(stateDir, { recursive: true });
  const lockPath = path.join(stateDir, 'build.lock');
  const ownerPath = path.join(stateDir, 'build.owner.json');
  const options = { lockfilePath: lockPath, realpath: false, stale: 30_000, update: 5_000, retries: 0 };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(stateDir, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const owner = readOwner(ownerPath);
    if (owner && !isAlive(owner.pid)) {
      // The previous build crashed: its lock is stale whatever its age.
      rmSync(lockPath, { recursive: true, force: true });
      release = await lockfile.lock(stateDir, options);
    } else {
      const who = owner ? `pid ${owner.pid}, \`${owner.command}\` started ${owner.started}` : 'unknown process';
      throw new UserError(`another build is running (${who})`, 'wait for it to finish; if it hung, stop that process and run the build again', 'lock/busy');
    }
  }
  writeFileSync(ownerPath, JSON.stringify({ pid: process.pid, started: new Date().toISOString(), command } satisfies Owner));
  return async () => {
    rmSync(ownerPath, { force: true });
    await release();
  };
}

function readOwner(file: string): Owner | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Owner;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
