// modules/rate-limit: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createThrottle, type Throttle } from './throttle.repository';
export {
  createRequestWindows,
  createSpentChallenges,
  type RequestWindows,
  type SpentChallenges,
} from './shared-limits.repository';
export { createRateLimitModule } from './rate-limit.module';
