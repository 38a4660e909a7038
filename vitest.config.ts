import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Server tests that replace a module (vi.mock) and so need a module cache of their own. */
const ISOLATED_SERVER_TESTS = ['apps/server/test/system/authorization-matrix.test.ts'];
/**
 * Server tests that never read DATABASE_URL (the DICOM engine's, the archive writer's and the lint
 * rules'): a run on PostgreSQL (DATABASE_URL set) leaves them out, as they ran the same on PGlite.
 */
const DATABASE_FREE_SERVER_TESTS = [
  'apps/server/test/dicom/**',
  'apps/server/test/dicom-archive/**',
  'apps/server/test/architecture.test.ts',
];
const skippedOnPostgres = process.env.DATABASE_URL ? DATABASE_FREE_SERVER_TESTS : [];

// One runner for every unit and integration test in the repo. Browser tests live in e2e/ (Playwright).
export default defineConfig({
  // The web app's own import alias, so its modules load in tests as they do in the Vite build.
  resolve: {
    alias: [{ find: /^@\//, replacement: fileURLToPath(new URL('apps/web/src/', import.meta.url)) }],
  },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests each start their own database; two cores are the budget.
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: ['apps/server/test/**/*.test.ts'],
          exclude: [...ISOLATED_SERVER_TESTS, ...skippedOnPostgres],
          // One migrated, seeded database that every integration test file copies (test/global-setup.ts).
          globalSetup: ['apps/server/test/global-setup.ts'],
          // A worker loads the server's modules once and runs file after file on them: each file
          // still builds its own app, services and database (test/helpers/test-app.ts), and no
          // server test replaces a module, so what a file may not share it never gets from the
          // module cache. Loading them anew for each file was a third of this suite's time.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'server, isolated',
          include: [...ISOLATED_SERVER_TESTS],
          globalSetup: ['apps/server/test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'apps and packages',
          // Web component tests (*.test.tsx) set their own DOM environment with `@vitest-environment jsdom`.
          include: [
            'apps/web/test/**/*.test.ts',
            'apps/web/test/**/*.test.tsx',
            'apps/viewer/test/**/*.test.ts',
            'packages/*/test/**/*.test.ts',
          ],
        },
      },
    ],
  },
});
