import { defineConfig } from 'vitest/config';

// Slow suites (multi-year property runs, big vaults) run only with MEMVAULT_SLOW=1 (`npm run test:slow`).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
