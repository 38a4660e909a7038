import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { FailedJob } from '@mi/contracts/admin';
import type { Database } from '../db/client';

/** Postgres schema of the job tables; modules that list their own jobs query it. */
export const JOB_SCHEMA = 'pgboss';
const SCHEMA = JOB_SCHEMA;

/** A job is a name, a payload schema and a handler, each in its own `<name>.job.ts` file. */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  payload: S;
  /** Retries with exponential backoff; failed jobs are kept for admins to inspect. */
  retry: { limit: number; delaySeconds: number };
  /** Also run on this cron schedule (UTC); pg-boss makes one process send each due run. */
  cron?: string;
  handler(data: z.infer<S>, ctx: { jobId: string; log: Logger }): Promise<void>;
}

export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

export interface JobQueue {
  send<S extends z.ZodType>(
    job: JobDefinition<S>,
    data: z.infer<S>,
    opts?: { singletonKey?: string; id?: string },
  ): Promise<string | null>;
  /** Starts handlers for these jobs in this process (serve does this; so does `worker`). */
  work(jobs: JobDefinition[]): Promise<void>;
  listFailed(limit?: number): Promise<FailedJob[]>;
  ping(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * pg-boss on whichever database we run: PostgreSQL through its own pool, PGlite through the
 * `db` option (one in-process connection, so only one process may use it).
 */
export async function startJobQueue(
  database: Database,
  log: Logger,
  jobs: JobDefinition[],
): Promise<JobQueue> {
  const common = {
    schema: SCHEMA,
    // Failed jobs stay visible to admins for 30 days, then are archived; archive kept 90 days.
    archiveFailedAfterSeconds: 30 * 24 * 3600,
    deleteAfterDays: 90,
    maintenanceIntervalSeconds: 120,
    monitorStateIntervalSeconds: 60,
  } satisfies PgBoss.ConstructorOptions;
  // pg-boss records a job's completion without awaiting it; a handler that finishes while the
  // process shuts down would then query a closed database and crash the process. After stop(),
  // such late writes are dropped: the job stays active, expires and is retried (at-least-once).
  let stopped = false;
  let inFlight = 0;
  const executor: PgBoss.Db = {
    executeSql: (text, values) =>
      stopped ? Promise.resolve({ rows: [] }) : database.sql.executeSql(text, values),
  };
  // Both databases go through our executor: on PostgreSQL it shares the app's pool.
  const boss = new PgBoss({ ...common, db: executor });
  boss.on('error', (err) => log.error({ err }, 'job queue error'));
  await boss.start();
  for (const job of jobs) {
    await boss.createQueue(job.name, {
      name: job.name,
      retryLimit: job.retry.limit,
      retryDelay: job.retry.delaySeconds,
      retryBackoff: true,
    });
    if (job.cron) await boss.schedule(job.name, job.cron, {}, { tz: 'UTC' });
  }
  const workerIds: string[] = [];

  return {
    async send(job, data, opts) {
      const parsed = job.payload.parse(data);
      const id = await boss.send(job.name, parsed as object, {
        ...(opts?.singletonKey ? { singletonKey: opts.singletonKey } : {}),
        ...(opts?.id ? { id: opts.id } : {}),
      });
      // Wake local workers so a job sent by this process starts without waiting for a poll.
      for (const w of workerIds) boss.notifyWorker(w);
      return id;
    },
    async work(defs) {
      for (const def of defs) {
        const id = await boss.work(def.name, { batchSize: 1, pollingIntervalSeconds: 1 }, async (batch) => {
          inFlight++;
          try {
            for (const job of batch) {
              const jobLog = log.child({ job: def.name, jobId: job.id });
              const data = def.payload.parse(job.data);
              await def.handler(data, { jobId: job.id, log: jobLog });
            }
          } finally {
            inFlight--;
          }
        });
        workerIds.push(id);
      }
    },
    async listFailed(limit = 100) {
      const res = await database.sql.executeSql(
        `select id, name, state, retry_count, created_on, completed_on, output from ${SCHEMA}.job where state = 'failed'
         union all
         select id, name, state, retry_count, created_on, completed_on, output from ${SCHEMA}.archive where state = 'failed'
         order by created_on desc limit $1`,
        [limit],
      );
      return (res.rows as Array<Record<string, unknown>>).map((r) => ({
        id: String(r.id),
        name: String(r.name),
        state: String(r.state),
        retryCount: Number(r.retry_count),
        createdOn: new Date(r.created_on as string).toISOString(),
        completedOn: r.completed_on ? new Date(r.completed_on as string).toISOString() : null,
        error: describeOutput(r.output),
      }));
    },
    async ping() {
      await database.sql.executeSql(`select 1 from ${SCHEMA}.version limit 1`, []);
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      // Let handlers that were mid-flight finish and record their outcome while the database is open.
      for (let waited = 0; inFlight > 0 && waited < 10_000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 50));
      stopped = true;
    },
  };
}

function describeOutput(output: unknown): string | null {
  if (output == null) return null;
  if (typeof output === 'object' && output !== null && 'message' in output)
    return String((output as { message: unknown }).message);
  return typeof output === 'string' ? output : JSON.stringify(output);
}
