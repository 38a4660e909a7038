/**
 * How many browser tests run at once, each worker against an app of its own (global-setup.ts).
 * One by default: on two cores the suite is bound by Chromium's and the apps' CPU, and two workers
 * took as long as one (24.5 min against 24.9). E2E_WORKERS=2 or more on a larger machine.
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 1) || 1);
