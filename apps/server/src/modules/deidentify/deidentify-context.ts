import type { LeftOutInstance } from '@mi/contracts/deidentify';
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
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { JobQueue } from '../../jobs/queue';
import type { ObjectStorage } from '../../ports/storage/storage';
import { type AccessService, sessionPrincipal, type StudyRow } from '../access';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { StudiesRepository } from '../studies';
import { type CopiesFollowUp } from './deidentified-copy';
import type { NotificationEvent } from '../notifications';

/** Why a de-identified copy is not copied or downloaded de-identified again (see requireIdentifiedSource). */
export const ALREADY_DEIDENTIFIED =
  'This study is already a de-identified copy: share or download it as it is.';

// What the parts of the de-identification service (deidentify.service.ts) share.

export interface DeidentifyDeps {
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

export type SourceRow = Awaited<ReturnType<StudiesRepository['instancesForDownload']>>[number];
export type Deidentified = Extract<DeidentifyResult, { kind: 'deidentified' }>;

export const PROFILE = 'Basic Application Level Confidentiality Profile';
/** Files of a copy stored (and made durable) together. */
export const STORE_BATCH = 32;
/** Instances read ahead of the one being de-identified (small ones only: at most 4 × 32 MiB). */
export const READ_AHEAD = { depth: 4, maxBytes: 32 * 1024 * 1024 };
export const OPTION_NAMES: Partial<Record<(typeof APPLIED_OPTIONS)[number], string>> = {
  retainLongitudinalModifiedDates: 'Retain Longitudinal Temporal Information with Modified Dates',
  cleanDescriptors: 'Clean Descriptors',
};

/** The owner's keys, the one access rule, the audit record, and de-identifying a study's instances. */
export function createDeidentifyTools(deps: DeidentifyDeps) {
  const { key, dateShiftFor } = deidentifyKeys(deps.secret);

  const context = (ownerId: string, copyKey: string, includePdfReports: boolean): DeidentifyContext => ({
    dateShiftDays: dateShiftFor(ownerId),
    uids: createUidMap(copyKey),
    includePdfReports,
  });

  const requireOwner = (auth: AuthenticatedSession, studyId: string, meta: RequestMeta, action: string) =>
    deps.access.requireOwner(sessionPrincipal(auth), studyId, meta, { auditAction: action });

  /**
   * The owner's study to make a de-identified copy or download of: never one that is itself such a
   * copy, whose dates would be shifted a second time and drift from every other copy's.
   */
  const requireIdentifiedSource = async (
    auth: AuthenticatedSession,
    studyId: string,
    meta: RequestMeta,
    action: string,
  ) => {
    const study = await requireOwner(auth, studyId, meta, action);
    if (study.deidentified) throw new AppError('CONFLICT', ALREADY_DEIDENTIFIED);
    return study;
  };

  const success = (
    auth: AuthenticatedSession,
    meta: RequestMeta,
    action: string,
    study: StudyRow,
    details: Record<string, unknown>,
  ) =>
    deps.audit({
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
    for await (const { item: row, bytes } of readingAhead(deps.storage, rows, location, READ_AHEAD)) {
      let result: DeidentifyResult;
      try {
        result = deidentifyInstance(await (bytes ?? readInstance(deps.storage, location(row))), ctx);
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

  return { key, context, requireOwner, requireIdentifiedSource, success, deidentifyAll };
}
export type DeidentifyTools = ReturnType<typeof createDeidentifyTools>;

/**
 * The index's header of a de-identified file, read back from what was written. With pixel data, the
 * first part is everything before its value and is read as ingest reads a file's start (the value's
 * length checked against the file's size); a file without pixel data is read whole.
 */
export const headerOf = (result: Deidentified): InstanceHeader => {
  const [head, ...rest] = result.parts;
  if (!head) throw new Error('empty file');
  const parsed = parseDicomHeader(
    head,
    rest.length === 0 ? { complete: true } : { complete: false, fileSize: result.size },
  );
  if (parsed.kind !== 'instance') throw new Error('not an instance');
  return parsed;
};

export const leftOutOf = (
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
export function summaryOf(
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
