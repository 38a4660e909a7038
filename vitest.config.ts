import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One runner for every unit and integration test in the repo. Browser tests live in e2e/ (Playwright).
export default defineConfig({
  // The web app's own import alias, so its modules load in tests as they do in the Vite build.
  resolve: {
    alias: [{ find: /^@\//, replacement: fileURLToPath(new URL('apps/web/src/', import.meta.url)) }],
  },
  test: {
    // Web component tests (*.test.tsx) set their own DOM environment with `@vitest-environment jsdom`.
    include: ['apps/*/test/**/*.test.ts', 'apps/web/test/**/*.test.tsx', 'packages/*/test/**/*.test.ts'],
    environment: 'node',
    // One migrated, seeded database that every integration test file copies (test/global-setup.ts).
    globalSetup: ['apps/server/test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests each start their own database; two cores are the budget.
    maxWorkers: 2,
    pool: 'forks',
  },
});
