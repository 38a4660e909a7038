import { createRequestWindows, createSpentChallenges } from './shared-limits.repository';
import { createThrottle } from './throttle.repository';

export interface RateLimitModuleDeps {
  db: Parameters<typeof createThrottle>[0];
  now: () => Date;
}

/** Counters shared by every API process: throttles, request windows, spent captcha challenges. */
export function createRateLimitModule({ db, now }: RateLimitModuleDeps) {
  return {
    throttle: createThrottle(db, now),
    /** Per-address request counters of the rate-limited routes (http/rate-limit-store.ts). */
    requestWindows: createRequestWindows(db),
    spentChallenges: createSpentChallenges(db),
  };
}
