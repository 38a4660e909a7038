/**
 * How many browser tests run at once, each worker against an app of its own (global-setup.ts).
 * The tests mostly wait on the app and the browser, so two workers fit this machine's two cores;
 * E2E_WORKERS=1 runs them one after another against one app.
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 2) || 1);
