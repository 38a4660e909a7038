import { chromium } from '@playwright/test';
import { startApp } from './app-process';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';
import { CHOSEN_ADMIN_PASSWORD, chooseFirstAdminPassword } from './first-admin';
import { E2E_WORKERS } from './workers';

/**
 * Starts one app per test worker with `npm start` (as the README does), each on free ports with a
 * throwaway DATA_DIR, so that tests in different workers never share users, limits or mail. The
 * first admin of each signs in once with the one-time password it printed and chooses
 * CHOSEN_ADMIN_PASSWORD, in Chromium, as an operator would; the workers get the addresses and that
 * password (tests/worker-app.ts picks a worker's own).
 */
export default async function globalSetup() {
  const started = Date.now();
  const apps = await Promise.all(Array.from({ length: E2E_WORKERS }, () => startApp()));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    for (const app of apps) {
      const context = await browser.newContext({ baseURL: app.base });
      await chooseFirstAdminPassword(await context.newPage(), app.adminPassword, CHOSEN_ADMIN_PASSWORD);
      await context.close();
    }
  } catch (err) {
    await Promise.all(apps.map((app) => app.stop()));
    throw err;
  } finally {
    await browser.close();
  }
  process.env.E2E_APPS = JSON.stringify(
    apps.map((app) => ({ base: app.base, viewer: app.viewer, adminPassword: CHOSEN_ADMIN_PASSWORD })),
  );
  console.log(
    `e2e: ${apps.length} app(s) started in ${Date.now() - started} ms at ${apps.map((a) => a.base).join(', ')}`,
  );
  return async () => {
    await Promise.all(apps.map((app) => app.stop()));
  };
}
