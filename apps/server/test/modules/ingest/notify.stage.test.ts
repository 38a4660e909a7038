import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DICOMDIR_READ } from '../../../src/modules/ingest/classify.stage';
import { IngestRun, type Summary } from '../../../src/modules/ingest/ingest-run';
import {
  describeSuccess,
  failureNotification,
  notifyByEmail,
  successNotification,
} from '../../../src/modules/ingest/notify.stage';
import { createOutboxRepository } from '../../../src/ports/mail/outbox.repository';
import { newPatient, type Patient } from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
let bob: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-notify-stage@example.com');
  bob = await newPatient(ctx, 'bob-notify-stage@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

const summary = (s: Partial<Summary>): Summary => ({
  files: 0,
  prescanned: 0,
  instances: 0,
  unchanged: 0,
  skipped: 0,
  skipReasons: {},
  stages: {},
  ...s,
});

describe('notify stage', () => {
  it('describes what an upload brought', () => {
    expect(describeSuccess(1, summary({ instances: 3 }))).toBe(
      'Your upload has been processed: 1 study with 3 images is ready in My Studies.',
    );
    expect(describeSuccess(2, summary({ unchanged: 2 }))).toBe(
      'Your upload has been processed: 2 studies with 2 images are ready in My Studies. All of them were already there, so nothing new was added.',
    );
    expect(
      describeSuccess(
        1,
        summary({
          instances: 1,
          unchanged: 1,
          skipped: 3,
          skipReasons: { [DICOMDIR_READ]: 1, 'not a DICOM file': 2 },
        }),
      ),
    ).toBe(
      'Your upload has been processed: 1 study with 2 images is ready in My Studies. 1 of them was already there. 2 files were skipped (2 files: not a DICOM file).',
    );
    // The files skipped are named, the first few of each reason (IngestRun.skip keeps them).
    expect(
      describeSuccess(
        1,
        summary({
          instances: 1,
          skipped: 6,
          skipReasons: { 'duplicate instance in the upload': 5, 'not a DICOM file': 1 },
          skippedNames: {
            'duplicate instance in the upload': ['S/1.dcm', 'S/2.dcm', 'S/3.dcm'],
            'not a DICOM file': ['README.TXT'],
          },
        }),
      ),
    ).toBe(
      'Your upload has been processed: 1 study with 1 image is ready in My Studies. 6 files were skipped (5 files: duplicate instance in the upload — S/1.dcm, S/2.dcm, S/3.dcm and 2 more; 1 file: not a DICOM file — README.TXT).',
    );
    expect(successNotification(ada.id, 2, summary({ instances: 2 }))).toMatchObject({
      userId: ada.id,
      type: 'system',
      title: 'Studies processed',
    });
  });

  it('keeps the first few names of the files skipped for each reason, made safe to show', () => {
    const run = new IngestRun({} as never, {} as never, {} as never, {} as never, {} as never);
    for (let i = 0; i < 5; i++) run.skip('not a DICOM file', `f${i}.txt`);
    run.skip('damaged entry in the ZIP', 'a\u0007b\u202e.dcm');
    run.skip('damaged entry in the ZIP', `CD/${'😀'.repeat(80)}`);
    run.skip('duplicate instance in the upload');
    expect(run.summary.skipped).toBe(8);
    expect(run.summary.skippedNames).toEqual({
      'not a DICOM file': ['f0.txt', 'f1.txt', 'f2.txt'],
      'damaged entry in the ZIP': ['a?b?.dcm', `…${'😀'.repeat(59)}`],
    });
  });

  it('titles a failure by its reason', () => {
    expect(failureNotification(ada.id, 'The upload is empty: no files were found in the ZIP.').title).toBe(
      'No study found in your upload',
    );
    expect(failureNotification(ada.id, 'No DICOM images were found in your upload.').title).toBe(
      'No study found in your upload',
    );
    expect(failureNotification(ada.id, 'Storage Limit Exceeded: …')).toEqual({
      userId: ada.id,
      type: 'system',
      title: 'Upload could not be processed',
      description: 'Storage Limit Exceeded: …',
    });
  });

  it('emails the owner only when they asked for such emails', async () => {
    const { users, mail, config } = ctx.services;
    await users.update(bob.id, { emailNotifications: false });
    const deps = { users, mail, appUrl: config.publicUrl };
    await notifyByEmail(deps, bob.id, true);
    await notifyByEmail(deps, ada.id, false);
    const outbox = createOutboxRepository(ctx.services.database.db);
    const aboutUploads = async () =>
      (await outbox.latest(50)).filter((m) => m.subject.startsWith('Your upload'));
    const sent = await eventually(async () => {
      const rows = await aboutUploads();
      return rows.length > 0 ? rows : undefined;
    });
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      ['ada-notify-stage@example.com', 'Your upload could not be processed'],
    ]);
  });
});
