import type { AnalysisStudy, Study, StudyListItem } from '@mi/contracts/studies';
import type { ChangeFeed } from '../../db/change-feed';
import { AppError } from '../../http/app-error';
import { isNotModified, type ListPage, serializeItems } from '../../http/serialized-list';
import type { JobQueue, JobTarget, JobTransaction } from '../../jobs/queue';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AccessService, StudyAction } from '../access';
import { auditActor, type Principal, sessionPrincipal } from '../access';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { UploadArea } from '../uploads';
import { OBJECT_NAME } from '../uploads';
import { ZipLayout } from './download-zip';
import type { AuditBuffer } from './audit-buffer';
import { purgeStudy } from './finish-deletes.job';
import type { PROCESS_STUDY } from './process-study';
import { createStudyListCache } from './study-list-cache';
import type { InvitationsService } from '../invitations';
import type { StudiesRepository, StudyRow } from './studies.repository';
import type { UploadRow } from './study-uploads.repository';

interface Deps {
  repo: StudiesRepository;
  access: AccessService;
  storage: ObjectStorage;
  uploadArea: UploadArea;
  queue: JobQueue;
  /** The process-study job (handled by modules/ingest/process-study.job.ts), queued per upload. */
  job: JobTarget<(typeof PROCESS_STUDY)['payload']>;
  audit: AuditRecorder;
  /** For the audit events of the hot list route. */
  auditBuffer: AuditBuffer;
  /** Change notifications that keep the list cache current. */
  changes: ChangeFeed;
  /** The rule for uploads on behalf of an inviter (shared uploads). */
  invitations: Pick<InvitationsService, 'requireSharedUpload' | 'recordSharedUpload'>;
}

/** The cached study lists, audit records, and the access rule as the owner's studies use it. */
function createStudiesTools(deps: Deps) {
  const { repo, audit } = deps;
  const listCache = createStudyListCache({
    feed: deps.changes,
    version: (ownerId) => repo.listVersion(ownerId),
    async build(ownerId) {
      return serializeItems((await repo.listCompleted(ownerId)).map(toStudyListItemDto));
    },
  });

  const auditEvent = (
    auth: AuthenticatedSession,
    meta: RequestMeta,
    action: string,
    targetId: string | null,
    outcome: 'success' | 'denied' | 'failure',
    details?: Record<string, unknown>,
  ) =>
    audit({
      actorId: auth.user.id,
      actorRole: auth.user.role,
      action,
      targetType: 'study',
      targetId,
      outcome,
      requestId: meta.requestId,
      ip: meta.ip,
      ...(details ? { details } : {}),
    });

  /** The signed-in user's access to a study, through the access module (the one check). */
  const requireStudyAccess = (
    auth: AuthenticatedSession,
    studyId: string,
    action: StudyAction,
    meta: RequestMeta,
  ): Promise<StudyRow> =>
    deps.access.requireStudyAccess(sessionPrincipal(auth), action, { id: studyId }, meta);

  /** A user's own id only; anyone else's looks missing. */
  async function requireSelf(
    auth: AuthenticatedSession,
    userId: string,
    action: string,
    meta: RequestMeta,
  ): Promise<void> {
    if (userId === auth.user.id) return;
    await audit({
      actorId: auth.user.id,
      actorRole: auth.user.role,
      action,
      targetType: 'user',
      targetId: userId.slice(0, 64),
      outcome: 'denied',
      requestId: meta.requestId,
      ip: meta.ip,
    });
    throw new AppError('NOT_FOUND', 'Not found');
  }

  /** What a repeated request to process an upload finds, said as it is. */
  async function describeProcessing(upload: { status: string; reason: string | null }, jobId: string) {
    if (upload.status === 'completed')
      return 'This upload has already been processed. Its studies are in My Studies.';
    if (upload.status === 'failed')
      return `This upload could not be processed: ${upload.reason ?? 'see your notifications.'}`;
    const state = await deps.queue.stateOf(jobId);
    if (state === 'active')
      return 'Your study is being processed right now. You will be notified once it is complete.';
    if (state === 'retry')
      return 'Processing of your study was interrupted and will resume shortly. You will be notified once it is complete.';
    if (state === 'created')
      return 'Your study is waiting to be processed. You will be notified once it is complete.';
    return 'Processing of your study stopped on our side. It will be retried automatically within 30 minutes; you will be notified of the outcome.';
  }

  return { repo, audit, listCache, auditEvent, requireStudyAccess, requireSelf, describeProcessing };
}
type StudiesTools = ReturnType<typeof createStudiesTools>;

/** Processing an upload into studies, as its owner asks. */
function createStudyProcessing(deps: Deps, tools: StudiesTools) {
  const { repo, audit, requireSelf, describeProcessing } = tools;
  return {
    requireSelf,

    async requestProcessing(
      auth: AuthenticatedSession,
      body: {
        prefix: string;
        jobContext: { uploadType: 'regular' | 'shared'; targetUserId?: string; invitation?: string };
      },
      meta: RequestMeta,
    ) {
      // A shared upload (through an invite link) goes to the inviter: they own the studies and their
      // quota is charged; the uploader gains no access to them.
      const shared =
        body.jobContext.uploadType === 'shared'
          ? await deps.invitations.requireSharedUpload(
              auth.user.id,
              body.jobContext.invitation,
              body.jobContext.targetUserId,
              meta,
            )
          : undefined;
      let objectName = body.prefix.trim().replace(/\/+$/, '');
      if (!objectName.endsWith('/study.zip')) objectName = `${objectName}/study.zip`;
      const match = OBJECT_NAME.exec(objectName);
      const notFound = async () => {
        await audit({
          actorId: auth.user.id,
          actorRole: auth.user.role,
          action: 'study.process',
          targetType: 'upload',
          targetId: objectName.slice(0, 120),
          outcome: 'denied',
          requestId: meta.requestId,
          ip: meta.ip,
        });
        return new AppError('NOT_FOUND', 'Upload not found. Please upload the files again.');
      };
      if (!match || match[1] !== auth.user.id) throw await notFound();

      // The job id is the upload id, so a repeated request can never queue a second run.
      const queueProcessing = (upload: UploadRow, within?: JobTransaction) =>
        deps.queue.send(
          deps.job,
          {
            uploadId: upload.id,
            userId: upload.ownerId,
            objectName: upload.objectName,
            ...(upload.uploadedBy && upload.uploadedBy !== upload.ownerId
              ? { uploadedBy: upload.uploadedBy }
              : {}),
          },
          { id: upload.id, ...(within ? { within } : {}) },
        );
      let upload = await repo.findUploadByObjectName(objectName);
      let queuedNow = false;
      if (!upload) {
        const info = await deps.uploadArea.info(objectName);
        if (!info || info.size === undefined || info.offset !== info.size) throw await notFound();
        // The record and its job are written together (one commit on the request's path).
        const ensured = await repo.ensureUpload(
          {
            ownerId: shared?.inviterId ?? auth.user.id,
            objectName,
            uploadType: shared ? 'shared' : 'regular',
            sizeBytes: info.size,
            uploadedBy: auth.user.id,
            ...(shared ? { invitationId: shared.invitationId } : {}),
          },
          queueProcessing,
        );
        upload = ensured.row;
        queuedNow = ensured.created;
        if (queuedNow) deps.queue.wake();
        if (shared && ensured.created)
          await deps.invitations.recordSharedUpload(auth.user.id, shared, upload.id, meta);
      }
      // The object is in the caller's folder; the upload is theirs to process if they sent it.
      if ((upload.uploadedBy ?? upload.ownerId) !== auth.user.id) throw await notFound();
      let message = 'Your study is being processed. You will be notified once the processing is complete.';
      if (upload.jobId && !queuedNow) message = await describeProcessing(upload, upload.jobId);
      if (!upload.jobId) {
        // A record made before its job was written with it: queued now.
        await queueProcessing(upload);
        await repo.setUploadJob(upload.id, upload.id);
      }
      await audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'study.process',
        targetType: 'upload',
        targetId: upload.id,
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
      });
      return { message, jobId: upload.jobId ?? upload.id };
    },
  };
}

/** The owner's studies read: the list, one study, its download. */
function createStudyReading(deps: Deps, tools: StudiesTools) {
  const { repo, audit, listCache, auditEvent, requireStudyAccess, requireSelf } = tools;
  const reading = {
    /**
     * The caller's studies list, serialised, with its ETag. Served from the per-owner cache while the
     * owner's list version stands still; audited through the buffer (one insert per 100 ms).
     */
    async listSerialized(
      auth: AuthenticatedSession,
      userId: string,
      meta: RequestMeta,
      ifNoneMatch: string | undefined,
      page?: ListPage,
    ) {
      await requireSelf(auth, userId, 'study.list', meta);
      const list = await listCache.get(userId);
      const notModified = isNotModified(ifNoneMatch, list, page);
      deps.auditBuffer.record({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'study.list',
        targetType: 'user',
        targetId: userId,
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
        details: {
          count: list.count,
          ...(page ? { page } : {}),
          ...(notModified ? { notModified: true } : {}),
        },
      });
      return { ...list, notModified };
    },

    async get(auth: AuthenticatedSession, studyId: string, meta: RequestMeta): Promise<StudyRow> {
      const study = await requireStudyAccess(auth, studyId, 'read', meta);
      await auditEvent(auth, meta, 'study.read', study.id, 'success');
      return study;
    },

    async download(auth: AuthenticatedSession, studyId: string, meta: RequestMeta, range: string | null) {
      return reading.downloadAs(sessionPrincipal(auth), studyId, meta, range);
    },

    /**
     * A study's files as one ZIP, for any principal the access rule lets download it (its owner; a
     * study link's recipient when the link allows downloads, modules/links).
     */
    async downloadAs(p: Principal, studyId: string, meta: RequestMeta, range: string | null) {
      const study = await deps.access.requireStudyAccess(p, 'download', { id: studyId }, meta);
      const rows = await repo.instancesForDownload(study.id);
      const seriesIndex = new Map<string, number>();
      const perSeries = new Map<string, number>();
      const items = rows.map((r) => {
        if (!seriesIndex.has(r.seriesUid)) seriesIndex.set(r.seriesUid, seriesIndex.size + 1);
        const n = (perSeries.get(r.seriesUid) ?? 0) + 1;
        perSeries.set(r.seriesUid, n);
        const folder = `${String(seriesIndex.get(r.seriesUid)).padStart(3, '0')}_${(r.modality ?? 'OT').replace(/[^A-Za-z0-9]/g, '') || 'OT'}`;
        return {
          name: `${folder}/${String(n).padStart(5, '0')}.dcm`,
          size: r.sizeBytes,
          crc32: r.crc32,
          location: r,
        };
      });
      const actor = auditActor(p);
      await audit({
        actorId: actor.actorId,
        actorRole: actor.actorRole,
        action: 'study.download',
        targetType: 'study',
        targetId: study.id,
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
        details: { instances: items.length, ...(range ? { range } : {}), ...(actor.link ?? {}) },
      });
      const layout = new ZipLayout(items);
      /** The archive's bytes, all of them or one range (inclusive). */
      const stream = (start?: number, end?: number) => layout.stream(deps.storage, start, end);
      return { study, layout, stream };
    },
  };
  return reading;
}

/** Deleting a study. */
function createStudyDeletion(deps: Deps, tools: StudiesTools) {
  const { repo, listCache, auditEvent, requireStudyAccess, requireSelf } = tools;
  return {
    async delete(
      auth: AuthenticatedSession,
      userId: string,
      studyId: string,
      meta: RequestMeta,
    ): Promise<void> {
      await requireSelf(auth, userId, 'study.delete', meta);
      // Someone else's study, a study already deleted, an id that never existed and one that is not
      // an id at all get the same 404, so a delete tells a stranger nothing. (A delete that stopped
      // half-way still finds its study, being deleted, and finishes it.)
      const study = await requireStudyAccess(auth, studyId, 'delete', meta);
      // Hidden first, so it leaves every list at once; then objects, then rows.
      await repo.markDeleting(study.id, auth.user.id, new Date());
      // This process's next list must not wait for the change notification.
      listCache.changed(auth.user.id);
      await purgeStudy(repo, deps.storage, study);
      await auditEvent(auth, meta, 'study.delete', study.id, 'success');
    },
  };
}

/** Studies: processing requests, reads, downloads and deletion, each behind one access check. */
export function createStudiesService(deps: Deps) {
  const tools = createStudiesTools(deps);
  return {
    ...createStudyProcessing(deps, tools),
    ...createStudyReading(deps, tools),
    ...createStudyDeletion(deps, tools),
  };
}
export type StudiesService = ReturnType<typeof createStudiesService>;

/** A row of the studies list (`studyListItemSchema`): what the list pages show, nothing more. */
export function toStudyListItemDto(row: StudyRow & { latestCompletedAt?: Date | null }): StudyListItem {
  return {
    _id: row.id,
    id: row.id,
    studyId: row.studyInstanceUid,
    createdAt: row.createdAt.toISOString(),
    status: {
      process: { value: row.processStatus, reason: row.processReason },
      transfer: { value: row.transferStatus },
    },
    metadata: {
      studyDescription: row.studyDescription,
      location: row.institutionName,
      patientName: row.patientName,
      modality: row.modalities.length > 0 ? row.modalities.join('/') : null,
      studyDate: row.studyDate,
    },
    latestCompletionDate: row.latestCompletedAt?.toISOString() ?? null,
    ...(row.deidentified ? { deidentified: true } : {}),
  };
}

/** One study in full (`GET /api/studies/study/{id}`). */
export function toStudyDto(row: StudyRow): Study {
  const item = toStudyListItemDto(row);
  return {
    ...item,
    ownerId: row.ownerId,
    metadata: {
      ...item.metadata,
      patientId: row.patientId,
      patientBirthDate: row.patientBirthDate,
      patientSex: row.patientSex,
      modalities: row.modalities,
      accessionNumber: row.accessionNumber,
      bodyPart: row.bodyPart,
    },
    seriesCount: row.seriesCount,
    instanceCount: row.instanceCount,
    sizeBytes: row.sizeBytes,
  };
}

export function toAnalysisStudyDto(row: StudyRow): AnalysisStudy {
  return {
    id: row.id,
    type: row.modalities.length > 0 ? row.modalities.join('/') : null,
    date: row.studyDate,
    status: row.processStatus,
    fileType: 'DICOM',
    fileSize: row.sizeBytes,
    metadata: {
      patient: row.patientName,
      age: row.patientAge ?? ageAt(row.patientBirthDate, row.studyDate),
      modality: row.modalities.length > 0 ? row.modalities.join('/') : null,
      bodyPart: row.bodyPart,
    },
  };
}

/** Age in whole years on the study date, in DICOM's `045Y` form, when the files do not state it. */
function ageAt(birth: string | null, on: string | null): string | null {
  if (!birth || !on) return null;
  const [by, bm, bd] = birth.split('-').map(Number) as [number, number, number];
  const [y, m, d] = on.split('-').map(Number) as [number, number, number];
  let years = y - by;
  if (m < bm || (m === bm && d < bd)) years--;
  return years >= 0 && years < 200 ? `${String(years).padStart(3, '0')}Y` : null;
}
