import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob, startJobQueue } from '../../src/jobs/queue';
import { createLogger } from '../../src/logger';
import { createTestContext, eventually, type TestContext } from '../helpers/test-app';

describe('job concurrency', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('runs up to `concurrency` jobs of one kind at once on PostgreSQL, one at a time on the embedded database', async () => {
    let running = 0;
    let most = 0;
    let done = 0;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const job = defineJob({
      name: 'overlapping-test',
      payload: z.object({ n: z.number() }),
      retry: { limit: 0, delaySeconds: 1 },
      concurrency: 2,
      async handler() {
        running++;
        most = Math.max(most, running);
        // Held until both were sent and had time to start, or released by the test.
        await Promise.race([released, new Promise((r) => setTimeout(r, 3000))]);
        running--;
        done++;
      },
    });
    // A queue of its own on the test's database, as a worker process would have.
    const queue = await startJobQueue(ctx.services.database, createLogger('silent'));
    try {
      await queue.register([job]);
      await queue.work();
      await queue.send(job, { n: 1 });
      await queue.send(job, { n: 2 });
      const expected = ctx.services.database.kind === 'pglite' ? 1 : 2;
      await eventually(async () => most >= expected, 15_000);
      release();
      await eventually(async () => done === 2, 15_000);
      expect(most).toBe(expected);
    } finally {
      release();
      await queue.stop();
    }
  });
});
