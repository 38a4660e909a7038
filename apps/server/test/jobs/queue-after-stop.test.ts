import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { nothingDone } from '../../src/jobs/queue';

// After the queue stops, the statements pg-boss still sends (a job that finished during shutdown
// records its outcome without awaiting it) are answered as if they changed nothing
// (`nothingDone` in src/jobs/queue.ts). pg-boss's command methods read the count from the first row;
// an empty answer made them throw, unawaited, which ended a test run with unhandled rejections.
// The statements are pg-boss's own, from its query plans.
const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as Record<
  string,
  (schema: string) => string
> & {
  fetchNextJob: (schema: string) => (options: object) => string;
};

describe('statements after the queue stopped', () => {
  it.each(['completeJobs', 'failJobsById', 'cancelJobs', 'resumeJobs', 'deleteJobs', 'retryJobs'])(
    '%s is answered with a count of 0',
    (plan) => {
      expect(nothingDone(plans[plan]!('pgboss'))).toEqual({ rows: [{ count: '0' }] });
    },
  );

  it('fetching the next jobs finds none', () => {
    expect(nothingDone(plans.fetchNextJob('pgboss')({}))).toEqual({ rows: [] });
  });
});
