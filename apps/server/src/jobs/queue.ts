import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { FailedJob } from '@mi/contracts/admin';
import type { Database, SqlExecutor } from '../db/client';

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
  /**
   * How many of these jobs one process runs at once on PostgreSQL (default 1; always 1 on the embedded
   * database). For jobs that mostly wait on the database and storage, so one overlaps another's waits.
   */
  concurrency?: number;
  handler(data: z.infer<S>, ctx: { jobId: string; log: Logger }): Promise<void>;
}

export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

/**
 * What sending a job needs: its name and payload schema. A service that queues its own job is given
 * this part (e.g. RUN_ANALYSIS), so the job definition, whose handler calls the service, can be made
 * after the service.
 */
export type JobTarget<S extends z.ZodType = z.ZodType> = Pick<JobDefinition<S>, 'name' | 'payload'>;

/** A transaction a job can be written in, its statements run on its connection (db/transaction-sql.ts). */
export type JobTransaction = SqlExecutor;

export interface JobQueue {
  /**
   * Queues a job; null when one with this id or singleton key is already queued. With `within`, the
   * job is written in the caller's transaction (db/transaction-sql.ts) and this process's workers are
   * not woken: call wake() once that transaction has committed.
   */
  send<S extends z.ZodType>(
    job: JobTarget<S>,
    data: z.infer<S>,
    opts?: { singletonKey?: string; id?: string; within?: JobTransaction },
  ): Promise<string | null>;
  /** Wakes this process's workers, so a job just committed starts without waiting for a poll. */
  wake(): void;
  /**
   * Makes jobs known to the queue (their queues, retry policies and schedules). Before any send and
   * before work(), which starts handlers for the jobs registered so far.
   */
  register(jobs: readonly JobDefinition[]): Promise<void>;
  /** Every registered job (tests run handlers directly). */
  readonly jobs: readonly JobDefinition[];
  /** Starts handlers for every registered job in this process (serve does this; so does `worker`). */
  work(): Promise<void>;
  listFailed(limit?: number): Promise<FailedJob[]>;
  /**
   * Runs a failed job again (an admin's retry): a failed job still in the queue goes back to it with
   * one more try; an archived one is sent anew with the same payload. False when no failed job has this id.
   */
  retryFailed(jobId: string): Promise<boolean>;
  /**
   * A user's queued, retrying and running jobs of these names, oldest first. A job names its owner
   * in its payload's `userId`, and a shared upload's processing also its sender in `uploadedBy`
   * (see process-study.job.ts).
   */
  pendingFor(userId: string, names: readonly string[]): Promise<PendingJob[]>;
  /** A job's state ('created', 'retry', 'active', 'completed', 'failed', …), archived ones included; null when unknown. */
  stateOf(jobId: string): Promise<string | null>;
  ping(): Promise<void>;
  stop(): Promise<void>;
}

/** A job that has not finished yet: queued (`created`), waiting for a retry, or running (`active`). */
export interface PendingJob {
  id: string;
  name: string;
  state: string;
  data: Record<string, unknown>;
  createdOn: Date;
}

/** Jobs as admins and users see them: a job's state, failed jobs (retried), a user's pending ones. */
function jobRecords(
  database: Database,
  boss: PgBoss,
  workerIds: string[],
): Pick<JobQueue, 'stateOf' | 'listFailed' | 'retryFailed' | 'pendingFor' | 'ping'> {
  return {
    async stateOf(jobId) {
      const res = await database.sql.executeSql(
        `select state from ${SCHEMA}.job where id = $1::uuid
         union all select state from ${SCHEMA}.archive where id = $1::uuid limit 1`,
        [jobId],
      );
      const row = res.rows[0] as { state?: unknown } | undefined;
      return row ? String(row.state) : null;
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
    async retryFailed(jobId) {
      const requeued = await database.sql.executeSql(
        `update ${SCHEMA}.job set state = 'retry', retry_limit = retry_limit + 1, start_after = now()
         where id = $1::uuid and state = 'failed' returning name`,
        [jobId],
      );
      const name = (requeued.rows[0] as { name?: unknown } | undefined)?.name;
      if (typeof name === 'string') {
        for (const w of workerIds) boss.notifyWorker(w);
        return true;
      }
      const archived = await database.sql.executeSql(
        `delete from ${SCHEMA}.archive where id = $1::uuid and state = 'failed' returning name, data`,
        [jobId],
      );
      const row = archived.rows[0] as { name?: unknown; data?: unknown } | undefined;
      if (!row || typeof row.name !== 'string') return false;
      await boss.send(row.name, parseData(row.data));
      for (const w of workerIds) boss.notifyWorker(w);
      return true;
    },
    async pendingFor(userId, names) {
      const res = await database.sql.executeSql(
        `select id, name, state, data, created_on from ${SCHEMA}.job
         where name = any($1::text[]) and state in ('created', 'retry', 'active')
           and (data->>'userId' = $2 or data->>'uploadedBy' = $2)
         order by created_on`,
        [names, userId],
      );
      return (res.rows as Array<Record<string, unknown>>).map((r) => ({
        id: String(r.id),
        name: String(r.name),
        state: String(r.state),
        data: parseData(r.data),
        createdOn: new Date(r.created_on as string),
      }));
    },
    async ping() {
      await database.sql.executeSql(`select 1 from ${SCHEMA}.version limit 1`, []);
    },
  };
}

/**
 * pg-boss on whichever database we run: PostgreSQL through its own pool, PGlite through the
 * `db` option (one in-process connection, so only one process may use it).
 */
export async function startJobQueue(database: Database, log: Logger): Promise<JobQueue> {
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
      stopped ? Promise.resolve(nothingDone(text)) : database.sql.executeSql(text, values),
  };
  // Both databases go through our executor: on PostgreSQL it shares the app's pool.
  const boss = new PgBoss({ ...common, db: executor });
  boss.on('error', (err) => log.error({ err }, 'job queue error'));
  await boss.start();
  const registered: JobDefinition[] = [];
  const workerIds: string[] = [];
  const leases = createLeases(database, log, boss);
  // The embedded database admits one process: whatever it finds active was left by a process that died.
  if (database.kind === 'pglite') await leases.reclaimAllActive();

  const wake = () => {
    for (const w of workerIds) boss.notifyWorker(w);
  };

  /** One pg-boss worker (a polling loop taking one job at a time) for `def`. */
  async function workOn(def: JobDefinition): Promise<void> {
    const id = await boss.work(def.name, { batchSize: 1, pollingIntervalSeconds: 1 }, async (batch) => {
      inFlight++;
      try {
        for (const job of batch) {
          const jobLog = log.child({ job: def.name, jobId: job.id });
          await leases.hold(job.id, def.name);
          try {
            const data = def.payload.parse(job.data);
            await def.handler(data, { jobId: job.id, log: jobLog });
          } finally {
            await leases.release(job.id);
          }
        }
      } finally {
        inFlight--;
      }
    });
    workerIds.push(id);
  }

  return {
    jobs: registered,
    async register(jobs) {
      for (const job of jobs) {
        if (registered.some((r) => r.name === job.name)) throw new Error(`job ${job.name} registered twice`);
        await boss.createQueue(job.name, {
          name: job.name,
          retryLimit: job.retry.limit,
          retryDelay: job.retry.delaySeconds,
          retryBackoff: true,
        });
        if (job.cron) await boss.schedule(job.name, job.cron, {}, { tz: 'UTC' });
        registered.push(job);
      }
    },
    async send(job, data, opts) {
      const parsed = job.payload.parse(data);
      const id = await boss.send(job.name, parsed as object, {
        ...(opts?.singletonKey ? { singletonKey: opts.singletonKey } : {}),
        ...(opts?.id ? { id: opts.id } : {}),
        ...(opts?.within ? { db: opts.within } : {}),
      });
      // Woken now, a worker would look before the caller's transaction commits and find nothing.
      if (!opts?.within) wake();
      return id;
    },
    wake,
    async work() {
      for (const def of registered) {
        // The embedded database runs one query at a time in this process: a second job would only queue.
        const concurrency = database.kind === 'pglite' ? 1 : (def.concurrency ?? 1);
        for (let i = 0; i < concurrency; i++) await workOn(def);
      }
      leases.start();
    },
    ...jobRecords(database, boss, workerIds),
    async stop() {
      leases.stop();
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      // Let handlers that were mid-flight finish and record their outcome while the database is open.
      for (let waited = 0; inFlight > 0 && waited < 10_000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 50));
      stopped = true;
    },
  };
}

/**
 * The answer of a statement that changed nothing, for statements dropped after stop(). pg-boss's
 * complete / fail / cancel / resume / delete end with `SELECT COUNT(*) FROM results` and read the
 * count of the first row (an empty answer made it throw, unawaited); every other statement gets no rows.
 */
export function nothingDone(text: string): { rows: Array<Record<string, unknown>> } {
  return /select\s+count\(\*\)\s+from\s+results\s*;?\s*$/i.test(text)
    ? { rows: [{ count: '0' }] }
    : { rows: [] };
}

/** A job's payload as the driver hands it back: parsed JSON (pg) or JSON text. */
function parseData(data: unknown): Record<string, unknown> {
  const value = typeof data === 'string' ? (JSON.parse(data) as unknown) : data;
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function describeOutput(output: unknown): string | null {
  if (output == null) return null;
  if (typeof output === 'object' && output !== null && 'message' in output)
    return String((output as { message: unknown }).message);
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/** A running job's lease is renewed this often… */
const LEASE_HEARTBEAT_MS = 5_000;
/** …and taken for dead, its job handed to a live worker, once it is this old. */
const LEASE_STALE_MS = 20_000;
const INTERRUPTED = { message: 'The process running this job stopped; it was handed to another worker.' };

/**
 * Leases (table job_leases) let a crashed process's jobs resume within seconds rather than after the
 * queue's expiry. A job that was interrupted is failed through pg-boss, so its retry count grows and a
 * job that keeps killing its worker ends up failed (kept for admins), never retried forever.
 */
function createLeases(database: Database, log: Logger, boss: PgBoss) {
  const owner = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  const sql = (text: string, values: unknown[] = []) => database.sql.executeSql(text, values);

  async function interrupt(jobs: Array<{ id: string; name: string }>) {
    for (const job of jobs) {
      await boss.fail(job.name, job.id, INTERRUPTED);
      // Due now, not after the retry delay: the work was cut off, not refused.
      await sql(
        `update ${SCHEMA}.job set start_after = now() where name = $1 and id = $2::uuid and state = 'retry'`,
        [job.name, job.id],
      );
      log.warn({ job: job.name, jobId: job.id }, 'interrupted job handed to a live worker');
    }
  }

  const rowsToJobs = (rows: unknown[]) =>
    (rows as Array<{ job_id: string; job_name: string }>).map((r) => ({ id: r.job_id, name: r.job_name }));

  async function reclaimStale() {
    const res = await sql(
      `delete from job_leases where heartbeat_at < now() - make_interval(secs => $1) returning job_id, job_name`,
      [LEASE_STALE_MS / 1000],
    );
    await interrupt(rowsToJobs(res.rows));
  }

  /**
   * Active jobs without a lease: a process killed between taking a job and writing its lease (or a
   * reclaim cut off before the job was failed). This process takes their leases first, so that of
   * several processes looking at once only one fails each job, then hands them on. pg-boss keeps no
   * index on active jobs, so this scan runs once per stale period, not at every heartbeat.
   */
  async function reclaimOrphans() {
    const res = await sql(
      `with orphan as (
         select j.id, j.name from ${SCHEMA}.job j
         where j.state = 'active' and j.started_on < now() - make_interval(secs => $1)
           and not exists (select 1 from job_leases l where l.job_id = j.id)
         for update of j skip locked
       )
       insert into job_leases (job_id, job_name, owner, heartbeat_at)
       select id, name, $2, now() from orphan
       on conflict (job_id) do nothing
       returning job_id, job_name`,
      [LEASE_STALE_MS / 1000, owner],
    );
    const jobs = rowsToJobs(res.rows);
    await interrupt(jobs);
    for (const job of jobs) await release(job.id);
  }

  async function release(jobId: string) {
    await sql(`delete from job_leases where job_id = $1 and owner = $2`, [jobId, owner]).catch(
      (err: unknown) => log.warn({ err, jobId }, 'job lease not released; it will go stale'),
    );
  }

  return {
    /**
     * Committed without waiting for the write-ahead log's flush (set_config for this statement's own
     * transaction): a lease lost to a crash of the database server is what reclaimOrphans is for, and
     * every job starts after this write.
     */
    async hold(jobId: string, jobName: string) {
      await sql(
        `insert into job_leases (job_id, job_name, owner, heartbeat_at)
         select $1, $2, $3, now() from (select set_config('synchronous_commit', 'off', true)) async_commit
         on conflict (job_id) do update set owner = excluded.owner, heartbeat_at = now()`,
        [jobId, jobName, owner],
      );
    },
    release,
    /** Every active job and every lease belong to a dead process (embedded database, at start). */
    async reclaimAllActive() {
      await sql('delete from job_leases');
      const res = await sql(`select id, name from ${SCHEMA}.job where state = 'active'`);
      await interrupt(res.rows as Array<{ id: string; name: string }>);
    },
    /** Renews this process's leases and reclaims stale ones, until stop(). */
    start() {
      if (timer) return;
      let beats = 0;
      timer = setInterval(() => {
        void (async () => {
          await sql(`update job_leases set heartbeat_at = now() where owner = $1`, [owner]);
          await reclaimStale();
          if (beats++ % (LEASE_STALE_MS / LEASE_HEARTBEAT_MS) === 0) await reclaimOrphans();
        })().catch((err: unknown) => log.warn({ err }, 'job lease upkeep failed'));
      }, LEASE_HEARTBEAT_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
