import { defineConfig } from 'vitest/config';

// One runner for every unit and integration test in the repo. Browser tests live in e2e/ (Playwright).
export default defineConfig({
  test: {
    include: ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests each start their own database; two cores are the budget.
    maxWorkers: 2,
    pool: 'forks',
  },
});
