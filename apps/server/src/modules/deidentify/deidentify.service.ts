import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { DeidentifyPreview, LeftOutInstance } from '@mi/contracts/deidentify';
import {
  deidentifyInstance,
  type DeidentifyContext,
  type DeidentifyResult,
} from '../../dicom/deidentify/deidentify';
import {
  APPLIED_OPTIONS,
  createUidMap,
  deidentifyKeys,
  METHOD_CODES,
  PROFILE_EDITION,
} from '../../dicom/deidentify/profile';
import { parseDicomHeader, type InstanceHeader } from '../../dicom-archive/dicom-header';
import { readingAhead, readInstance, type InstanceLocation } from '../../dicom-archive/instance-location';
import { crcOf } from '../../dicom-archive/zip-reader';
import type { RequestMeta } from '../../http/request-meta';
import type { JobQueue } from '../../jobs/queue';
import { putBatch } from '../../ports/storage/put-batch';
import type { ObjectStorage } from '../../ports/storage/storage';
import { type AccessService, sessionPrincipal, type StudyRow } from '../access';
import { QuotaExceededError, quotaGB } from '../accounts';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { IndexedInstance, StudiesRepository } from '../studies';
import { type CopiesFollowUp, DEIDENTIFIED_COPY, DEIDENTIFIED_SEND } from './deidentified-copy';
import { AppError } from '../../http/app-error';
import type { NotificationEvent } from '../notifications';
import { zipStream, type ZipEntry } from '../../dicom-archive/zip-writer';

interface Deps {
  access: AccessService;
  studiesRepo: Pick<
    StudiesRepository,
    | 'findStudy'
    | 'instancesForDownload'
    | 'ensureUpload'
    | 'recordIntents'
    | 'commitIngest'
    | 'failUpload'
    | 'deidentifiedCopiesOf'
  >;
  storage: ObjectStorage;
  queue: JobQueue;
  audit: AuditRecorder;
  /** The server's secret: date shifts and copies' UIDs are derived from it, so nobody can undo them. */
  secret: string;
  defaultMaxStorageGB: number;
  /**
   * Does what a de-identified share or link asked for once its copies exist (services.ts hands it to
   * sharing or links). Throws AppError when that can no longer be done; the owner is told why.
   */
  sendCopies: (userId: string, copyStudyIds: string[], then: CopiesFollowUp) => Promise<void>;
  notify: (userId: string, event: NotificationEvent) => Promise<void>;
}

/** A de-identified share or link: its copies exist (`ready`, in order) or a job is making them. */
export type CopiesPrepared = { ready: string[] } | { queued: string };

type SourceRow = Awaited<ReturnType<StudiesRepository['instancesForDownload']>>[number];
type Deidentified = Extract<DeidentifyResult, { kind: 'deidentified' }>;

const PROFILE = 'Basic Application Level Confidentiality Profile';
/** Files of a copy stored (and made durable) together. */
const STORE_BATCH = 32;
/** Instances read ahead of the one being de-identified (small ones only: at most 4 × 32 MiB). */
const READ_AHEAD = { depth: 4, maxBytes: 32 * 1024 * 1024 };
const OPTION_NAMES: Partial<Record<(typeof APPLIED_OPTIONS)[number], string>> = {
  retainLongitudinalModifiedDates: 'Retain Longitudinal Temporal Information with Modified Dates',
  cleanDescriptors: 'Clean Descriptors',
};

/**
 * De-identified copies of a patient's own studies (PS3.15 Annex E, src/dicom/deidentify): a preview
 * of one instance, a copy made by a job as a new study in the owner's list, and a ZIP download made
 * on the fly. Only the owner may use any of it; anyone else gets the same 404 as for a missing study.
 */
export function createDeidentifyService(deps: Deps) {
  const { access, studiesRepo, storage, audit } = deps;
  const { key, dateShiftFor } = deidentifyKeys(deps.secret);

  const context = (ownerId: string, copyKey: string, includePdfReports: boolean): DeidentifyContext => ({
    dateShiftDays: dateShiftFor(ownerId),
    uids: createUidMap(copyKey),
    includePdfReports,
  });

  const requireOwner = (auth: AuthenticatedSession, studyId: string, meta: RequestMeta, action: string) =>
    access.requireOwner(sessionPrincipal(auth), studyId, meta, { auditAction: action });

  const success = (
    auth: AuthenticatedSession,
    meta: RequestMeta,
    action: string,
    study: StudyRow,
    details: Record<string, unknown>,
  ) =>
    audit({
      actorId: auth.user.id,
      actorRole: auth.user.role,
      action,
      targetType: 'study',
      targetId: study.id,
      outcome: 'success',
      requestId: meta.requestId,
      ip: meta.ip,
      details,
    });

  /** Each instance of the study, de-identified one at a time while the next ones are read. */
  async function* deidentifyAll(rows: SourceRow[], ctx: DeidentifyContext) {
    const location = (row: SourceRow) => row as InstanceLocation;
    for await (const { item: row, bytes } of readingAhead(storage, rows, location, READ_AHEAD)) {
      let result: DeidentifyResult;
      try {
        result = deidentifyInstance(await (bytes ?? readInstance(storage, location(row))), ctx);
      } catch (err) {
        result = {
          kind: 'left-out',
          code: 'failed',
          reason: `could not be read from storage (${err instanceof Error ? err.name : 'error'})`,
          sopInstanceUid: row.sopUid,
          modality: row.modality,
        };
      }
      yield { row, result };
    }
  }

  /**
   * The index's header of a de-identified file, read back from what was written. With pixel data, the
   * first part is everything before its value and is read as ingest reads a file's start (the value's
   * length checked against the file's size); a file without pixel data is read whole.
   */
  const headerOf = (result: Deidentified): InstanceHeader => {
    const [head, ...rest] = result.parts;
    if (!head) throw new Error('empty file');
    const parsed = parseDicomHeader(
      head,
      rest.length === 0 ? { complete: true } : { complete: false, fileSize: result.size },
    );
    if (parsed.kind !== 'instance') throw new Error('not an instance');
    return parsed;
  };

  const leftOutOf = (
    row: SourceRow,
    r: Extract<DeidentifyResult, { kind: 'left-out' }>,
  ): LeftOutInstance => ({
    seriesInstanceUid: row.seriesUid,
    sopInstanceUid: row.sopUid,
    modality: r.modality ?? row.modality,
    code: r.code,
    reason: r.reason,
  });

  /** What a copy records: the profile, what it removed or replaced (by attribute), what it left out. */
  function summaryOf(
    changes: Map<string, { name: string; kind: string; count: number }>,
    leftOut: LeftOutInstance[],
    extra: Record<string, unknown>,
  ) {
    return {
      edition: PROFILE_EDITION,
      profile: PROFILE,
      options: APPLIED_OPTIONS.map((o) => OPTION_NAMES[o] ?? o),
      methodCodes: METHOD_CODES.map((c) => c.value),
      attributes: [...changes.entries()].map(([tag, c]) => ({ tag, ...c })),
      leftOut,
      ...extra,
    };
  }

  const service = {
    async preview(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
      opts: { includePdfReports?: boolean } = {},
    ): Promise<DeidentifyPreview> {
      const study = await requireOwner(auth, studyId, meta, 'study.deidentify.preview');
      const rows = await studiesRepo.instancesForDownload(study.id);
      // The preview's UIDs are of a throwaway copy: what a real copy gets is never shown in advance.
      const ctx = context(study.ownerId, randomUUID(), opts.includePdfReports ?? false);
      let sample: Deidentified | null = null;
      const leftOut: LeftOutInstance[] = [];
      for await (const { row, result } of deidentifyAll(rows, ctx)) {
        if (result.kind === 'left-out') leftOut.push(leftOutOf(row, result));
        else sample ??= result;
      }
      await success(auth, meta, 'study.deidentify.preview', study, {
        instances: rows.length,
        leftOut: leftOut.length,
      });
      const top = sample?.changes.filter((c) => !c.path.includes('>')) ?? [];
      return {
        edition: PROFILE_EDITION,
        profile: PROFILE,
        options: APPLIED_OPTIONS.map((o) => OPTION_NAMES[o] ?? o),
        instanceCount: rows.length,
        sample: sample
          ? {
              sopInstanceUid: sample.sopInstanceUid,
              changes: top,
              nestedChanges: sample.changes.length - top.length,
              privateRemoved: sample.privateRemoved,
            }
          : null,
        leftOut,
      };
    },

    /** Queues the copy; the job id names it, so asking twice makes two copies, each made once. */
    async requestCopy(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
      opts: { includePdfReports?: boolean } = {},
    ): Promise<{ jobId: string }> {
      const study = await requireOwner(auth, studyId, meta, 'study.deidentify.copy');
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
      await success(auth, meta, 'study.deidentify.copy', study, { jobId: copyId });
      return { jobId: copyId };
    },

    /**
     * The job: every instance de-identified and stored, then indexed as a new study of the owner in
     * one transaction (modules/studies `commitIngest`) that also charges their storage and marks it
     * as a copy, so no copy is ever listed without its mark. A retry makes the same UIDs and storage
     * keys, so it completes the same copy.
     */
    async makeCopy(p: {
      userId: string;
      studyId: string;
      copyId: string;
      includePdfReports: boolean;
    }): Promise<string | null> {
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
      const ctx = context(p.userId, key(`copy:${p.copyId}`), p.includePdfReports);
      const rows = await studiesRepo.instancesForDownload(study.id);
      const items: IndexedInstance[] = [];
      const leftOut: LeftOutInstance[] = [];
      const changes = new Map<string, { name: string; kind: string; count: number }>();
      // Stored in batches, each recorded before its writes (an object of a run that dies is found and
      // deleted by ingest's sweep) and made durable together; storing one batch overlaps
      // de-identifying the next. At most two batches of files are in memory.
      // A file is kept as its parts (the de-identified header, then its pixel data as a view into the
      // source file read from storage): nothing copies the pixel data before it is written.
      let batch: Array<{ key: string; parts: readonly Uint8Array[]; size: number; item: IndexedInstance }> =
        [];
      let storing: Promise<void> = Promise.resolve();
      const storeBatch = async (b: typeof batch) => {
        await studiesRepo.recordIntents(
          upload.id,
          b.map((x) => x.key),
        );
        await putBatch(storage, b);
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
      for await (const { row, result } of deidentifyAll(rows, ctx)) {
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
      const summary = summaryOf(changes, leftOut, {
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
    },

    /**
     * For sharing or linking studies de-identified: the owner's copies of them, reused when made
     * before, otherwise made by a job that then does `then` with them (deidentified-send).
     */
    async prepare(ownerId: string, studyIds: string[], then: CopiesFollowUp): Promise<CopiesPrepared> {
      const made = await studiesRepo.deidentifiedCopiesOf(ownerId, studyIds);
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
          (await service.makeCopy({
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

    /**
     * The study's de-identified files as a ZIP, made while it streams (one file in memory at a time),
     * with `LEFT-OUT.txt` naming what stayed out and why. Every download is a copy of its own: new
     * UIDs each time, the owner's dates shifted as in every copy.
     */
    async download(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
      opts: { includePdfReports?: boolean } = {},
    ) {
      const study = await requireOwner(auth, studyId, meta, 'study.download.deidentified');
      const rows = await studiesRepo.instancesForDownload(study.id);
      const ctx = context(study.ownerId, key(`download:${randomUUID()}`), opts.includePdfReports ?? false);
      await success(auth, meta, 'study.download.deidentified', study, { instances: rows.length });
      const seriesIndex = new Map<string, number>();
      const perSeries = new Map<string, number>();
      const leftOut: string[] = [];
      async function* entries(): AsyncGenerator<ZipEntry> {
        for await (const { row, result } of deidentifyAll(rows, ctx)) {
          if (result.kind === 'left-out') {
            leftOut.push(`${row.modality ?? 'OT'} instance ${leftOut.length + 1}: ${result.reason}`);
            continue;
          }
          if (!seriesIndex.has(row.seriesUid)) seriesIndex.set(row.seriesUid, seriesIndex.size + 1);
          const n = (perSeries.get(row.seriesUid) ?? 0) + 1;
          perSeries.set(row.seriesUid, n);
          const folder = `${String(seriesIndex.get(row.seriesUid)).padStart(3, '0')}_${(row.modality ?? 'OT').replace(/[^A-Za-z0-9]/g, '') || 'OT'}`;
          yield { name: `${folder}/${String(n).padStart(5, '0')}.dcm`, data: result.bytes };
        }
        if (leftOut.length > 0) {
          const text = [
            `De-identified to ${PROFILE_EDITION} (${PROFILE}; ${APPLIED_OPTIONS.map((o) => OPTION_NAMES[o] ?? o).join('; ')}).`,
            'Left out of this archive:',
            ...leftOut,
            '',
          ].join('\n');
          yield { name: 'LEFT-OUT.txt', data: Buffer.from(text, 'utf8') };
        }
      }
      // One de-identified file in memory at a time; each is whole before its entry is written.
      return { study, stream: Readable.from(zipStream(entries(), { at: new Date() })) };
    },
  };
  return service;
}
export type DeidentifyService = ReturnType<typeof createDeidentifyService>;
