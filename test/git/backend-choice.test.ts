import { describe, expect, it } from 'vitest';
import { gitBackend } from '../../src/git/backend.js';

/**
 * The git suite runs twice (vitest.config.ts): on the git command, and again on isomorphic-git through
 * MEMVAULT_GIT_BACKEND. This checks each run is on the backend it claims, so the second run cannot quietly test the
 * git command again (or leak its backend into the other project's files).
 */
describe('the git suite runs on both backends', () => {
  it('uses the git command in the main project and isomorphic-git in the git-isomorphic project', async ({ task }) => {
    const expected = task.file.projectName === 'git-isomorphic' ? 'isomorphic' : 'cli';
    expect((await gitBackend()).kind).toBe(expected);
  });
});
