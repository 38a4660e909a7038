/**
 * The app this test worker drives (one per worker, started by global-setup.ts): sets the
 * E2E_BASE_URL, E2E_VIEWER_URL and E2E_ADMIN_* variables the specs read. Imported first by a11y.ts,
 * which every spec imports.
 */
interface StartedApp {
  base: string;
  viewer: string;
  adminPassword: string;
}

const apps = JSON.parse(process.env.E2E_APPS ?? '[]') as StartedApp[];
const mine = apps[Number(process.env.TEST_PARALLEL_INDEX ?? 0) % Math.max(apps.length, 1)];
if (mine) {
  process.env.E2E_BASE_URL = mine.base;
  process.env.E2E_VIEWER_URL = mine.viewer;
  process.env.E2E_ADMIN_EMAIL = 'admin@localhost.localdomain';
  process.env.E2E_ADMIN_PASSWORD = mine.adminPassword;
}

export const workerBaseUrl = mine?.base;
