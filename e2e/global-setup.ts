import { startApp } from './app-process';
import { E2E_WORKERS } from './workers';

/**
 * Starts one app per test worker with `npm start` (as the README does), each on free ports with a
 * throwaway DATA_DIR, so that tests in different workers never share users, limits or mail; hands
 * their addresses and first admins' one-time passwords to the workers (tests/worker-app.ts picks a
 * worker's own).
 */
export default async function globalSetup() {
  const started = Date.now();
  const apps = await Promise.all(Array.from({ length: E2E_WORKERS }, () => startApp()));
  process.env.E2E_APPS = JSON.stringify(
    apps.map((app) => ({ base: app.base, viewer: app.viewer, adminPassword: app.adminPassword })),
  );
  console.log(
    `e2e: ${apps.length} app(s) started in ${Date.now() - started} ms at ${apps.map((a) => a.base).join(', ')}`,
  );
  return async () => {
    await Promise.all(apps.map((app) => app.stop()));
  };
}
