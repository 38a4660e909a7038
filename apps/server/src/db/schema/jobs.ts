import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Leases of running jobs: the process running a job renews its lease every few seconds. A lease
 * left to go stale means its process died, and the job is handed to a live worker at once instead
 * of waiting out the queue's expiry (see jobs/queue.ts).
 */
export const jobLeases = pgTable(
  'job_leases',
  {
    jobId: uuid('job_id').primaryKey(),
    jobName: text('job_name').notNull(),
    /** The process holding it (a random id per process start). */
    owner: text('owner').notNull(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('job_leases_heartbeat_idx').on(t.heartbeatAt)],
);
