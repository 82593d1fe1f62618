import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Slow suites (multi-year property runs, big vaults) run only with MEMVAULT_SLOW=1 (`npm run test:slow`).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Closes the SQLite connections a file's code opened once the file is done (test/helpers/setup.ts).
    setupFiles: ['test/helpers/setup.ts'],
    // Vitest's default is one worker fewer than the cores: one test file at a time on a 2-core machine, while most of
    // a file's time goes to waiting for the CLI and git processes it spawns. Two files at a time keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        extends: true,
        test: {
          name: 'memvault',
          include: ['test/**/*.test.ts'],
          // One process per worker runs file after file: a fresh process per file paid start-up and module loading
          // again (~120 s of the suite's ~740 s CPU). Tests keep no state between files (temp dirs, env restored by withEnv).
          isolate: false,
        },
      },
      {
        // The git suite again on the isomorphic-git backend (what memvault uses where no git command exists): every
        // in-process build and every CLI the tests start picks it from MEMVAULT_GIT_BACKEND. A process per file, so the
        // variable never reaches the other project's files. Tests that are about the git command itself set it back.
        extends: true,
        test: {
          name: 'git-isomorphic',
          include: ['test/git/**/*.test.ts'],
          // Files that would run exactly what the memvault project runs: each test names its backend (backend,
          // index-lock), runs the git command whatever the variable (processes, the workflow's build, which drops
          // MEMVAULT_*), or calls no backend (message).
          exclude: ['test/git/{backend,index-lock,processes,workflows,message}.test.ts'],
          env: { MEMVAULT_GIT_BACKEND: 'isomorphic' },
          isolate: true,
        },
      },
    ],
  },
});
