/**
 * How many browser tests run at once, each worker against an app of its own (global-setup.ts).
 * Two by default: the suite waits on pages, timers and jobs more than it computes (one worker kept
 * about a third of two cores busy), so on this machine's two cores two workers took 11.5 min against
 * 15.0 min for one. E2E_WORKERS=1 to run one spec file at a time; more on a larger machine.
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 2) || 2);
