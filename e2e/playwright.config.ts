import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';
import { E2E_WORKERS } from './workers';

// Browser tests run against the built app started the way the README starts it (see global-setup),
// in Debian's Chromium; Playwright never downloads a browser here. Spec files are shared out over
// the workers; each worker drives an app of its own, and a file's tests run in order.
// Every app the tests start (global-setup, and the specs' own) sets its captcha's proof-of-work at
// 10 iterations an attempt instead of 1,000, as the server tests do: the sign-in and registration
// pages still fetch, solve and send a real ALTCHA challenge, but solving no longer costs Chromium
// about four seconds of CPU each time, which was most of this suite's time on two cores.
process.env.ALTCHA_COST ??= '10';

export default defineConfig({
  testDir: './tests',
  globalSetup: './global-setup.ts',
  fullyParallel: false,
  workers: E2E_WORKERS,
  // CI sets E2E_RETRIES=1 (.ci/run): a test that passes only on its second try is listed as flaky
  // at the end of the run, and one that fails twice still fails the run.
  retries: Number(process.env.E2E_RETRIES ?? 0),
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: '../test-results/e2e',
  use: {
    baseURL: process.env.E2E_BASE_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    // The app honours reduced motion (index.css): the accessibility checks (tests/a11y.ts) see
    // dialogs and toasts as they end up, never half faded in.
    reducedMotion: 'reduce',
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
  },
});
