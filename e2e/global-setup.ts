import { startApp } from './app-process';

/**
 * Starts the app with `npm start` (as the README does) on a free port with a throwaway DATA_DIR,
 * and hands its address and the first admin's one-time password to the tests.
 */
export default async function globalSetup() {
  const started = Date.now();
  const app = await startApp();
  process.env.E2E_BASE_URL = app.base;
  process.env.E2E_VIEWER_URL = app.viewer;
  process.env.E2E_ADMIN_EMAIL = 'admin@localhost.localdomain';
  process.env.E2E_ADMIN_PASSWORD = app.adminPassword;
  console.log(`e2e: app started in ${Date.now() - started} ms at ${app.base}`);
  return app.stop;
}
