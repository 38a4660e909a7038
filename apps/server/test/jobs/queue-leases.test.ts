import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob, JOB_SCHEMA, startJobQueue } from '../../src/jobs/queue';
import { createLogger } from '../../src/logger';
import { createTestContext, eventually, type TestContext } from '../helpers/test-app';

describe('job leases', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('hands on an active job that has no lease (its process died before writing one), once it is 20 s old', async () => {
    const sql = (text: string, values: unknown[] = []) => ctx.services.database.sql.executeSql(text, values);
    const ran: string[] = [];
    const job = defineJob({
      name: 'orphaned-test',
      payload: z.object({ n: z.number() }),
      // A minute's retry delay: an interrupted job must be due at once, not after it.
      retry: { limit: 2, delaySeconds: 60 },
      async handler(data) {
        ran.push(`job ${data.n}`);
      },
    });
    // A queue of its own on the test's database, as a worker process would have.
    const queue = await startJobQueue(ctx.services.database, createLogger('silent'));
    try {
      await queue.register([job]);
      const old = await queue.send(job, { n: 1 });
      const recent = await queue.send(job, { n: 2 });
      // As a process leaves them when it is killed right after taking them: active, with no lease.
      const takeWithoutLease = (id: string | null, secondsAgo: number) =>
        sql(
          `update ${JOB_SCHEMA}.job set state = 'active', started_on = now() - make_interval(secs => $2)
           where name = $1 and id = $3::uuid`,
          [job.name, secondsAgo, id],
        );
      await takeWithoutLease(old, 30);
      await takeWithoutLease(recent, 0);
      await queue.work();
      const jobs = async () =>
        (
          await sql(
            `select id, state, retry_count from ${JOB_SCHEMA}.job where name = $1 order by data->>'n'`,
            [job.name],
          )
        ).rows as Array<{ id: string; state: string; retry_count: number }>;
      await eventually(async () => (await jobs())[0]?.state === 'completed', 20_000);
      const [first, second] = await jobs();
      // Handed on once, through a failure (so a job that keeps killing its worker runs out of retries).
      expect(first).toMatchObject({ id: old, state: 'completed', retry_count: 1 });
      // The one taken a moment ago may still be writing its lease in a live process: left alone.
      expect(second).toMatchObject({ id: recent, state: 'active', retry_count: 0 });
      expect(ran).toEqual(['job 1']);
      expect((await sql('select job_id from job_leases where job_id = $1', [old])).rows).toEqual([]);
    } finally {
      await queue.stop();
    }
  }, 60_000);
});
