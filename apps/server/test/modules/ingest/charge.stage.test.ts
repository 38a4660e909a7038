import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeStage, ownerQuota } from '../../../src/modules/ingest/charge.stage';
import { QuotaExceededError } from '../../../src/modules/accounts/quota';
import { IngestError } from '../../../src/dicom-archive/zip-reader';
import { openRun } from '../../helpers/ingest-run';
import { buildZip, newPatient, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;

beforeAll(async () => {
  // A 1 MiB default quota.
  ctx = await createTestContext({ DEFAULT_MAX_STORAGE_GB: String(1 / 1024) });
  ada = await newPatient(ctx, 'ada-charge-stage@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

describe('charge stage', () => {
  it("reads the owner's quota: their own limit, or the default", async () => {
    const { users, config } = ctx.services;
    expect(await ownerQuota(users, ada.id, config.defaultMaxStorageGB)).toEqual({
      maxBytes: 1024 * 1024,
      usedBytes: 0,
      remainingBytes: 1024 * 1024,
    });
    await users.update(ada.id, { maxStorageBytes: 5000 });
    try {
      expect((await ownerQuota(users, ada.id, config.defaultMaxStorageGB)).maxBytes).toBe(5000);
    } finally {
      await users.update(ada.id, { maxStorageBytes: null });
    }
  });

  it('fails the run when the owner no longer exists', async () => {
    await expect(
      ownerQuota(ctx.services.users, '00000000-0000-4000-8000-000000000000', 10),
    ).rejects.toBeInstanceOf(IngestError);
  });

  it('adds up every batch and stops at the first that would go past the quota', async () => {
    const opened = await openRun(ctx, ada.id, buildZip([{ name: 'a', data: Buffer.from('a') }]));
    try {
      const { run } = opened;
      chargeStage(run, 600 * 1024);
      chargeStage(run, -100 * 1024);
      chargeStage(run, 524 * 1024);
      expect(run.addedBytes).toBe(1024 * 1024);
      let error: unknown;
      try {
        chargeStage(run, 1);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(QuotaExceededError);
      expect((error as QuotaExceededError).maxBytes).toBe(1024 * 1024);
    } finally {
      await opened.close();
    }
  });
});
