import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { AccessService, Principal } from '../access';
import type { AuditRecorder } from '../audit';
import type { DicomwebRepository, StudyRow } from './dicomweb.repository';
import { isUid } from './http-media';

/** Where DICOMweb is mounted on both origins; BulkDataURIs in cached metadata are built on it. */
export const DICOMWEB_ROOT = '/dicomweb';
export const NOT_FOUND = 'Not found';

/**
 * Repeated reads of one series by one reader (frames, bulk data, series metadata: a viewer asks for
 * them again and again) are audited once per window and process, not once per request.
 */
const SERIES_READ_AUDIT_WINDOW_MS = 10 * 60_000;
/** Readers remembered at most; beyond, the memory starts afresh (a few more audit entries). */
const SERIES_READ_AUDIT_KEYS = 10_000;

function requireUid(v: string, what: string): string {
  if (!isUid(v)) throw new AppError('BAD_REQUEST', `Malformed ${what} UID`);
  return v;
}

/**
 * The audit entry of a read of one series, written when this reader has not read it (for this
 * action) within the window on this process: with N nodes a burst may be recorded up to N times,
 * never zero times.
 */
function seriesReadAudit(
  audit: (
    p: Principal,
    meta: RequestMeta,
    action: string,
    studyId: string | null,
    outcome: 'success',
    details?: Record<string, unknown>,
  ) => Promise<void>,
) {
  const seriesReads = new Map<string, number>();
  return async (
    p: Principal,
    meta: RequestMeta,
    action: string,
    study: { id: string },
    series: { id: string; seriesInstanceUid: string },
    details?: Record<string, unknown>,
  ) => {
    const key = `${p.via}:${p.userId}:${p.studyId ?? ''}:${series.id}:${action}`;
    const last = seriesReads.get(key) ?? 0;
    if (Date.now() - last <= SERIES_READ_AUDIT_WINDOW_MS) return;
    if (seriesReads.size >= SERIES_READ_AUDIT_KEYS) seriesReads.clear();
    seriesReads.set(key, Date.now());
    await audit(p, meta, action, study.id, 'success', {
      seriesInstanceUid: series.seriesInstanceUid,
      ...details,
    });
  };
}

export interface DicomwebAccessDeps {
  repo: Pick<DicomwebRepository, 'seriesByUid' | 'instanceByUid'>;
  access: Pick<AccessService, 'visibleStudies' | 'requireStudyAccess'>;
  audit: AuditRecorder;
}

/**
 * What every DICOMweb read starts with: the study, series or instance a request names, through
 * the one access check (modules/access), and the audit entry of what was read.
 */
export function createDicomwebAccess(deps: DicomwebAccessDeps) {
  const { repo } = deps;

  async function audit(
    p: Principal,
    meta: RequestMeta,
    action: string,
    studyId: string | null,
    outcome: 'success' | 'denied',
    details?: Record<string, unknown>,
  ) {
    await deps.audit({
      actorId: p.userId,
      actorRole: p.role,
      action: `dicomweb.${action}`,
      targetType: 'study',
      targetId: studyId,
      outcome,
      requestId: meta.requestId,
      ip: meta.ip,
      // A vendor's reads name the order its credential serves; the actor is the vendor's provider.
      details: { via: p.via, ...(p.vendor ? { orderId: p.vendor.orderId } : {}), ...details },
    });
  }

  const auditSeriesRead = seriesReadAudit(audit);

  /** Studies the principal may see (the access module decides; a grant narrows to one). */
  function visibleStudies(p: Principal): Promise<StudyRow[]> {
    return deps.access.visibleStudies(p);
  }

  /** The study behind a request, through the one access check (a malformed UID is a 404 too). */
  function resolveStudy(
    p: Principal,
    studyUid: string,
    meta: RequestMeta,
    action: string,
  ): Promise<StudyRow> {
    return deps.access.requireStudyAccess(p, 'read', { uid: studyUid }, meta, {
      auditAction: `dicomweb.${action}`,
      notFoundMessage: NOT_FOUND,
    });
  }

  /** The series behind a request as `find` reads it (the series row, or more about it). */
  async function resolveSeriesBy<S>(
    p: Principal,
    studyUid: string,
    seriesUid: string,
    meta: RequestMeta,
    action: string,
    find: (studyId: string, seriesUid: string) => Promise<S | undefined>,
  ): Promise<{ study: StudyRow; series: S }> {
    requireUid(seriesUid, 'series');
    const study = await resolveStudy(p, studyUid, meta, action);
    const se = await find(study.id, seriesUid);
    if (!se) {
      await audit(p, meta, action, study.id, 'denied', { seriesInstanceUid: seriesUid });
      throw new AppError('NOT_FOUND', NOT_FOUND);
    }
    return { study, series: se };
  }

  function resolveSeries(
    p: Principal,
    studyUid: string,
    seriesUid: string,
    meta: RequestMeta,
    action: string,
  ) {
    return resolveSeriesBy(p, studyUid, seriesUid, meta, action, repo.seriesByUid);
  }

  async function resolveInstance(
    p: Principal,
    studyUid: string,
    seriesUid: string,
    sopUid: string,
    meta: RequestMeta,
    action: string,
  ) {
    requireUid(sopUid, 'instance');
    const { study, series } = await resolveSeries(p, studyUid, seriesUid, meta, action);
    const instance = await repo.instanceByUid(study.id, series.id, sopUid);
    if (!instance) {
      await audit(p, meta, action, study.id, 'denied', { sopInstanceUid: sopUid });
      throw new AppError('NOT_FOUND', NOT_FOUND);
    }
    return { study, series, instance };
  }

  return {
    audit,
    auditSeriesRead,
    visibleStudies,
    resolveStudy,
    resolveSeries,
    resolveSeriesBy,
    resolveInstance,
  };
}
export type DicomwebAccess = ReturnType<typeof createDicomwebAccess>;
