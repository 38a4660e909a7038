import { randomUUID } from 'node:crypto';
import type { LeftOutInstance } from '@mi/contracts/deidentify';
import { type DeidentifyContext } from '../../dicom/deidentify/deidentify';
import { type InstanceHeader } from '../../dicom-archive/dicom-header';
import { crcOf } from '../../dicom-archive/zip-reader';
import type { RequestMeta } from '../../http/request-meta';
import { putBatch } from '../../ports/storage/put-batch';
import { QuotaExceededError, quotaGB } from '../accounts';
import type { AuthenticatedSession } from '../auth';
import type { IndexedInstance } from '../studies';
import { type CopiesFollowUp, DEIDENTIFIED_COPY, DEIDENTIFIED_SEND } from './deidentified-copy';
import { AppError } from '../../http/app-error';

import {
  type CopiesPrepared,
  type DeidentifyDeps,
  type DeidentifyTools,
  headerOf,
  leftOutOf,
  type SourceRow,
  STORE_BATCH,
  summaryOf,
} from './deidentify-context';

type UploadRow = Awaited<ReturnType<DeidentifyDeps['studiesRepo']['ensureUpload']>>['row'];
type Changes = Map<string, { name: string; kind: string; count: number }>;

/**
 * Every instance de-identified and stored. Stored in batches, each recorded before its writes (an
 * object of a run that dies is found and deleted by ingest's sweep) and made durable together;
 * storing one batch overlaps de-identifying the next. At most two batches of files are in memory.
 * A file is kept as its parts (the de-identified header, then its pixel data as a view into the
 * source file read from storage): nothing copies the pixel data before it is written.
 */
async function storeCopyFiles(
  deps: DeidentifyDeps,
  tools: DeidentifyTools,
  upload: UploadRow,
  rows: SourceRow[],
  ctx: DeidentifyContext,
): Promise<{ items: IndexedInstance[]; leftOut: LeftOutInstance[]; changes: Changes }> {
  const items: IndexedInstance[] = [];
  const leftOut: LeftOutInstance[] = [];
  const changes: Changes = new Map();
  let batch: Array<{ key: string; parts: readonly Uint8Array[]; size: number; item: IndexedInstance }> = [];
  let storing: Promise<void> = Promise.resolve();
  const storeBatch = async (b: typeof batch) => {
    await deps.studiesRepo.recordIntents(
      upload.id,
      b.map((x) => x.key),
    );
    await putBatch(deps.storage, b);
    items.push(...b.map((x) => x.item));
  };
  const flush = async () => {
    await storing;
    const b = batch;
    batch = [];
    storing = b.length ? storeBatch(b) : Promise.resolve();
    // Its failure is thrown where it is awaited (next flush or the end), not as unhandled.
    storing.catch(() => undefined);
  };
  for await (const { row, result } of tools.deidentifyAll(rows, ctx)) {
    if (result.kind === 'left-out') {
      leftOut.push(leftOutOf(row, result));
      continue;
    }
    let header: InstanceHeader;
    try {
      header = headerOf(result);
    } catch (err) {
      leftOut.push(
        leftOutOf(row, {
          kind: 'left-out',
          code: 'failed',
          reason: `the de-identified file could not be read back (${err instanceof Error ? err.message : 'error'})`,
          sopInstanceUid: row.sopUid,
          modality: row.modality,
        }),
      );
      continue;
    }
    for (const c of result.changes) {
      const tag = c.path.includes('>') ? `${c.tag} (nested)` : c.tag;
      const seen = changes.get(tag);
      if (seen) seen.count++;
      else changes.set(tag, { name: c.name, kind: c.kind, count: 1 });
    }
    const storageKey = `dicom/${upload.id}/${result.sopInstanceUid}.dcm`;
    const crc32 = result.parts.reduce((crc, part) => crcOf(part, crc), 0) >>> 0;
    batch.push({
      key: storageKey,
      parts: result.parts,
      size: result.size,
      item: { header, sizeBytes: result.size, crc32, storageKey },
    });
    if (batch.length >= STORE_BATCH) await flush();
  }
  await flush();
  await storing;
  return { items, leftOut, changes };
}

/**
 * The stored files indexed as a new study of the owner in one transaction (modules/studies
 * `commitIngest`) that also charges their storage and marks it as a copy; or the upload failed,
 * with the owner told why, when nothing could be kept or it would exceed their storage.
 */
async function commitCopy(
  deps: DeidentifyDeps,
  p: { userId: string; copyId: string; includePdfReports: boolean },
  study: { id: string; studyDescription: string | null },
  upload: UploadRow,
  stored: { items: IndexedInstance[]; leftOut: LeftOutInstance[]; changes: Changes },
): Promise<string | null> {
  const { studiesRepo } = deps;
  const { items, leftOut } = stored;
  const summary = summaryOf(stored.changes, leftOut, {
    sourceStudyId: study.id,
    copyId: p.copyId,
    instances: items.length,
    includePdfReports: p.includePdfReports,
  });
  const description = study.studyDescription ? ` of "${study.studyDescription}"` : '';
  if (items.length === 0) {
    await studiesRepo.failUpload(upload.id, 'Every instance was left out', summary, {
      userId: p.userId,
      type: 'system',
      title: 'De-identified copy not made',
      description: `No instance${description} could be de-identified safely: ${leftOut.length} left out (see the preview for why).`,
    });
    return null;
  }
  try {
    const { studyIds } = await studiesRepo.commitIngest({
      uploadId: upload.id,
      ownerId: p.userId,
      defaultMaxBytes: deps.defaultMaxStorageGB * 1024 ** 3,
      items,
      summary,
      deidentification: summary,
      notification: () => ({
        userId: p.userId,
        type: 'system',
        title: 'De-identified copy ready',
        description: `Your de-identified copy${description} is in My Studies: ${items.length} instance(s)${leftOut.length > 0 ? `, ${leftOut.length} left out` : ''}.`,
      }),
    });
    return studyIds[0] ?? null;
  } catch (err) {
    if (!(err instanceof QuotaExceededError)) throw err;
    await studiesRepo.failUpload(upload.id, 'Storage limit exceeded', summary, {
      userId: p.userId,
      type: 'system',
      title: 'De-identified copy not made',
      description: `The copy would exceed your storage limit of ${quotaGB(err.maxBytes)} GB.`,
    });
    return null;
  }
}

/**
 * The job: every instance de-identified and stored, then indexed as a new study of the owner (see
 * commitCopy), so no copy is ever listed without its mark. A retry makes the same UIDs and storage
 * keys, so it completes the same copy.
 */
async function makeCopy(
  deps: DeidentifyDeps,
  tools: DeidentifyTools,
  p: { userId: string; studyId: string; copyId: string; includePdfReports: boolean },
): Promise<string | null> {
  const { studiesRepo } = deps;
  const study = await studiesRepo.findStudy(p.studyId);
  // The study was deleted or given away since: there is nothing of theirs to copy.
  if (!study || study.ownerId !== p.userId || study.deletingSince) return null;
  const { row: upload } = await studiesRepo.ensureUpload({
    ownerId: p.userId,
    objectName: `${p.userId}/deidentified/${p.copyId}`,
    uploadType: 'regular',
    sizeBytes: 0,
    uploadedBy: p.userId,
  });
  if (upload.status === 'completed') return upload.studyIds?.[0] ?? null;
  if (upload.status === 'failed') return null;
  const ctx = tools.context(p.userId, tools.key(`copy:${p.copyId}`), p.includePdfReports);
  const rows = await studiesRepo.instancesForDownload(study.id);
  const stored = await storeCopyFiles(deps, tools, upload, rows, ctx);
  return commitCopy(deps, p, study, upload, stored);
}

/** De-identified copies: asked for by the owner, made by a job, and made for a share or link. */
export function createDeidentifiedCopies(deps: DeidentifyDeps, tools: DeidentifyTools) {
  return {
    /** Queues the copy; the job id names it, so asking twice makes two copies, each made once. */
    async requestCopy(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
      opts: { includePdfReports?: boolean } = {},
    ): Promise<{ jobId: string }> {
      const study = await tools.requireIdentifiedSource(auth, studyId, meta, 'study.deidentify.copy');
      const copyId = randomUUID();
      await deps.queue.send(
        DEIDENTIFIED_COPY,
        {
          userId: auth.user.id,
          studyId: study.id,
          copyId,
          includePdfReports: opts.includePdfReports ?? false,
        },
        { id: copyId },
      );
      await tools.success(auth, meta, 'study.deidentify.copy', study, { jobId: copyId });
      return { jobId: copyId };
    },

    /** The job that makes a copy (see makeCopy). */
    makeCopy: (p: { userId: string; studyId: string; copyId: string; includePdfReports: boolean }) =>
      makeCopy(deps, tools, p),

    /**
     * For sharing or linking studies de-identified: the owner's copies of them, reused when made
     * before, otherwise made by a job that then does `then` with them (deidentified-send).
     */
    async prepare(ownerId: string, studyIds: string[], then: CopiesFollowUp): Promise<CopiesPrepared> {
      const made = await deps.studiesRepo.deidentifiedCopiesOf(ownerId, studyIds);
      if (studyIds.every((id) => made.has(id))) return { ready: studyIds.map((id) => made.get(id)!) };
      const jobId = randomUUID();
      const copies = studyIds.map((studyId) => ({
        studyId,
        copyId: randomUUID(),
        existingStudyId: made.get(studyId) ?? null,
      }));
      await deps.queue.send(DEIDENTIFIED_SEND, { userId: ownerId, copies, then }, { id: jobId });
      return { queued: jobId };
    },

    /** The job: each missing copy made (as `makeCopy`, so a retry completes the same ones), then `then`. */
    async send(p: {
      userId: string;
      copies: Array<{ studyId: string; copyId: string; existingStudyId: string | null }>;
      then: CopiesFollowUp;
    }) {
      const copyIds: string[] = [];
      for (const c of p.copies) {
        const id =
          c.existingStudyId ??
          (await makeCopy(deps, tools, {
            userId: p.userId,
            studyId: c.studyId,
            copyId: c.copyId,
            includePdfReports: false,
          }));
        // makeCopy told the owner why a copy was not made; nothing is sent without all of them.
        if (!id) return;
        copyIds.push(id);
      }
      try {
        await deps.sendCopies(p.userId, copyIds, p.then);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await deps.notify(p.userId, {
          type: 'system',
          title: p.then.kind === 'link' ? 'De-identified link not made' : 'De-identified copy not shared',
          description: `Your de-identified copy is in My Studies, but ${p.then.kind === 'link' ? 'the link could not be made' : 'it could not be shared'}: ${err.message}`,
          path: '/studies',
        });
      }
    },
  };
}
