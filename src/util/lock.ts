import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { writeFileAtomic } from './atomic.js';
import { UserError } from './errors.js';
import { clearLockLost, setLockLost } from './lock-state.js';
import { isAlive } from './process.js';

interface Owner {
  pid: number;
  started: string;
  command: string;
  /** Host the owner runs on: a pid means nothing on another machine (a vault on a network share). */
  host?: string;
  /** Start time of the owner process (Linux `/proc/<pid>/stat` field 22), so a reused pid is not taken for the owner. */
  pidStart?: string;
}

/**
 * proper-lockfile takes over a lock whose folder was not touched for `stale` ms. A build whose event loop is busy
 * (a huge memory, a slow disk) misses its refreshes, so that rule hands a live build's lock to a second one. The
 * mtime rule is therefore switched off in practice (a year) and staleness is decided by the owner record below.
 */
const NEVER_STALE_MS = 365 * 24 * 3600 * 1000;
/** A lock folder with no owner record is a build killed between `mkdir` and writing the record, once it is this old. */
const ORPHAN_MS = 60_000;
/**
 * How often a held lock's folder is touched, and so how soon a lock removed under a running build is noticed.
 * `MEMVAULT_TEST_LOCK_UPDATE_MS` (tests only, read here and nowhere else) shortens it, down to proper-lockfile's
 * minimum of 1 s, so that the test of a lost lock does not wait for the 5 s refresh.
 */
const UPDATE_MS = Number(process.env.MEMVAULT_TEST_LOCK_UPDATE_MS) || 5_000;

/**
 * Takes the build lock of a project (`.memvault/build.lock`) so two builds
 * (say `watch` and a nightly job) never write the same vault at once. A live
 * owner's lock is never taken, however long it runs: the lock is stale only
 * when the owner process recorded in `build.owner.json` is gone (same host,
 * pid not alive or reused by another process). A busy lock is a `UserError`
 * naming the owner (`another build is running (pid 123, \`memvault watch\` …)`).
 * If the lock is lost while held (its folder removed by hand), writes stop
 * (see `lock-state.ts`) and releasing reports it as a `UserError`; the
 * process never dies with an uncaught `ECOMPROMISED`. Returns the function
 * that releases it.
 */
export async function acquireBuildLock(stateDir: string, command: string, waitForReaders = true): Promise<() => Promise<void>> {
  mkdirSync(stateDir, { recursive: true });
  const lockPath = path.join(stateDir, 'build.lock');
  const ownerPath = path.join(stateDir, 'build.owner.json');
  let lost: UserError | undefined;
  const options = {
    lockfilePath: lockPath,
    realpath: false,
    stale: NEVER_STALE_MS,
    update: UPDATE_MS,
    retries: 0,
    onCompromised: (error: Error): void => {
      // Called from a timer: throwing here would crash the process with a stack. Record it; writes and release report it.
      lost = new UserError(
        'lock/lost',
        `the build lock ${path.relative(process.cwd(), lockPath) || lockPath} was lost while this build ran (${error.message}); nothing more is written`,
      );
      setLockLost(lost);
    },
  };
  const writeOwner = (): void => {
    const owner: Owner = { pid: process.pid, started: new Date().toISOString(), command, host: os.hostname(), ...pidStartOf(process.pid) };
    writeFileAtomic(ownerPath, JSON.stringify(owner));
  };
  // A lock this process lost earlier (watch keeps running) must not stop this one's writes.
  clearLockLost();
  let release: () => Promise<void>;
  try {
    release = waitForReaders ? await lockWaitingForReaders(stateDir, options, ownerPath) : await lockfile.lock(stateDir, options);
    writeOwner();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const owner = readOwner(ownerPath);
    if (!isStale(owner, lockPath)) {
      const who = owner ? `pid ${owner.pid}, \`${owner.command}\` started ${owner.started}` : 'unknown process';
      throw new UserError('lock/busy', `another build is running (${who})`);
    }
    release = await takeOver(stateDir, lockPath, ownerPath, options, writeOwner);
  }
  return async () => {
    clearLockLost();
    if (lost) throw lost;
    rmSync(ownerPath, { force: true });
    try {
      await release();
    } catch (error) {
      // Released already because it was compromised between the last check and now.
      if ((error as NodeJS.ErrnoException).code !== 'ERELEASED') throw error;
      if (lost) throw lost;
    }
  };
}

/** The owner's command of a read command saving the parse cache (read/cache-save.ts): it holds the lock for milliseconds. */
export const READ_SAVE_COMMAND = 'a read command (saving the parse cache)';
/** How long a build waits for a read command's save before calling the lock busy (a 20,000-file cache saves in ~0.3 s). */
const READ_SAVE_WAIT_MS = 3_000;

/**
 * Takes the lock; while a read command holds it to save the parse cache, waits
 * for it (a search must never make a build fail), up to READ_SAVE_WAIT_MS. A
 * read command's own save never waits (`waitForReaders` false): it skips the save.
 */
async function lockWaitingForReaders(
  stateDir: string,
  options: Parameters<typeof lockfile.lock>[1],
  ownerPath: string,
): Promise<() => Promise<void>> {
  const deadline = Date.now() + READ_SAVE_WAIT_MS;
  for (;;) {
    try {
      return await lockfile.lock(stateDir, options);
    } catch (error) {
      const reader = (error as NodeJS.ErrnoException).code === 'ELOCKED' && readOwner(ownerPath)?.command === READ_SAVE_COMMAND;
      if (!reader || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/**
 * Replaces the lock of a build that is gone. Two builds may find the same
 * dead owner at once: the check, the removal and the new lock happen under
 * a second lock (`build.lock.takeover`), so the second one to get there sees
 * the first as the live owner instead of removing its fresh lock (its
 * record is written before the takeover lock is released).
 */
async function takeOver(
  stateDir: string,
  lockPath: string,
  ownerPath: string,
  options: Parameters<typeof lockfile.lock>[1] & object,
  writeOwner: () => void,
): Promise<() => Promise<void>> {
  const busy = (): UserError => {
    const winner = readOwner(ownerPath);
    const who = winner ? `pid ${winner.pid}, \`${winner.command}\` started ${winner.started}` : 'it just started';
    return new UserError('lock/busy', `another build is running (${who})`);
  };
  let releaseTakeover: () => Promise<void>;
  try {
    // Held for milliseconds; one left by a build killed right here is stale after 10 s. Keyed on `lockPath`, not `stateDir`:
    // proper-lockfile keeps one lock per key in a process, and the build lock itself is keyed on `stateDir`.
    releaseTakeover = await lockfile.lock(lockPath, {
      lockfilePath: `${lockPath}.takeover`,
      realpath: false,
      stale: 10_000,
      retries: { retries: 20, minTimeout: 50, maxTimeout: 200 },
      onCompromised: () => {},
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw busy();
    throw error;
  }
  try {
    if (!isStale(readOwner(ownerPath), lockPath)) throw busy();
    rmSync(lockPath, { recursive: true, force: true });
    try {
      const release = await lockfile.lock(stateDir, options);
      // Before the takeover lock goes: until then the record names the dead owner.
      writeOwner();
      return release;
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw busy();
      throw again;
    }
  } finally {
    await releaseTakeover().catch(() => {});
  }
}

/** True when the lock's owner is certainly gone: never for a live process, nor for one on another host. */
function isStale(owner: Owner | undefined, lockPath: string): boolean {
  if (!owner) {
    // A lock folder without a record: a build killed right after `mkdir`, or one writing its record right now.
    try {
      return Date.now() - statSync(lockPath).mtimeMs > ORPHAN_MS;
    } catch {
      return true;
    }
  }
  if (owner.host !== undefined && owner.host !== os.hostname()) return false;
  if (!isAlive(owner.pid)) return true;
  // The pid is alive, but is it still the owner? A reused pid starts at another time.
  const now = pidStartOf(owner.pid).pidStart;
  return owner.pidStart !== undefined && now !== undefined && now !== owner.pidStart;
}

function readOwner(file: string): Owner | undefined {
  try {
    return decodeOwner(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * A lock file's owner, every field checked (a lock file is ours, but a crash, a full disk or another tool may have left
 * anything there). A plain check: zod is not worth loading for five fields in a module every locking command imports.
 */
function decodeOwner(raw: unknown): Owner | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { pid, started, command, host, pidStart } = raw as Record<string, unknown>;
  if (typeof pid !== 'number' || typeof started !== 'string' || typeof command !== 'string') return undefined;
  if ((host !== undefined && typeof host !== 'string') || (pidStart !== undefined && typeof pidStart !== 'string')) return undefined;
  return { pid, started, command, ...(host !== undefined ? { host } : {}), ...(pidStart !== undefined ? { pidStart } : {}) };
}

/** `{ pidStart }` on Linux (start time in clock ticks since boot), `{}` elsewhere. */
function pidStartOf(pid: number): { pidStart?: string } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start ? { pidStart: start } : {};
  } catch {
    return {};
  }
}
