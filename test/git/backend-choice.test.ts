import { describe, expect, it } from 'vitest';
import { gitBackend } from '../../src/git/backend.js';
import { build } from '../../src/pipeline/build.js';
import { createProject, removeProject } from '../helpers/project.js';
import { commitAll, gitConfig, initRepo, shortMemories } from './helpers.js';

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

  it("an in-process build takes the backend from its env option, not from the test process's environment", async () => {
    const root = createProject(shortMemories('2026-02-10', 0), gitConfig());
    try {
      initRepo(root);
      commitAll(root, 'memories');
      const env = { ...process.env, MEMVAULT_GIT_BACKEND: 'no-such-backend' };
      await expect(build({ root, now: new Date('2026-02-12T06:00:00Z'), env })).rejects.toThrow(
        'MEMVAULT_GIT_BACKEND is "no-such-backend"',
      );
      expect(process.env.MEMVAULT_GIT_BACKEND).not.toBe('no-such-backend');
    } finally {
      removeProject(root);
    }
  });
});
