import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireBuildLock, READ_SAVE_COMMAND } from '../../src/util/lock.js';

/**
 * A read command holds the build lock only while it saves the parse cache
 * (read/cache-save.ts): a build that starts meanwhile waits for it instead of
 * failing; another read command does not wait (it skips its save), and two
 * builds still refuse each other at once.
 */
const dirs: string[] = [];
const stateDir = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memvault-lock-'));
  dirs.push(dir);
  return path.join(dir, '.memvault');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the build lock and a read command saving the parse cache', () => {
  it('a build waits for the save, then takes the lock', async () => {
    const dir = stateDir();
    const releaseReader = await acquireBuildLock(dir, READ_SAVE_COMMAND, false);
    const started = Date.now();
    setTimeout(() => void releaseReader(), 300);
    const releaseBuild = await acquireBuildLock(dir, 'memvault build');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await releaseBuild();
  });

  it('another read command does not wait: its save is skipped', async () => {
    const dir = stateDir();
    const releaseReader = await acquireBuildLock(dir, READ_SAVE_COMMAND, false);
    await expect(acquireBuildLock(dir, READ_SAVE_COMMAND, false)).rejects.toMatchObject({ rule: 'lock/busy' });
    await releaseReader();
  });

  it('a build held by a build is busy at once', async () => {
    const dir = stateDir();
    const releaseBuild = await acquireBuildLock(dir, 'memvault build');
    const started = Date.now();
    await expect(acquireBuildLock(dir, 'memvault build')).rejects.toMatchObject({ rule: 'lock/busy' });
    expect(Date.now() - started).toBeLessThan(2_500);
    await releaseBuild();
  });
});
