import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { AccessRepository, SharedStudyRow, StudyRow, StudyTarget } from './access.repository';
import { auditActor, type Principal } from './principal';

/**
 * What a principal wants to do with a study. Owners may do everything but ask for their own study;
 * recipients of a share may read it and ask for ownership; a viewer grant may only read.
 */
export type StudyAction =
  'read' | 'download' | 'delete' | 'share' | 'transfer' | 'receipts' | 'request_ownership';

/** How a principal stands to a study it may see. */
export type StudyRelation = 'owner' | 'recipient';

const RECIPIENT_ACTIONS: ReadonlySet<StudyAction> = new Set(['read', 'request_ownership']);

/** The principal's relation to a study `requireStudyAccess` returned. */
export function relationOf(p: Principal, study: StudyRow): StudyRelation {
  // A link's recipient is never the owner, though the link's principal carries the owner's id.
  return study.ownerId === p.userId && !p.link ? 'owner' : 'recipient';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A DICOM UID as ingest admits it (see isValidUid in studies/dicom-header.ts). */
const DICOM_UID = /^[0-9]+(\.[0-9]+)*$/;
export const STUDY_NOT_FOUND = 'Study not found or invalid study ID.';

/**
 * Who may do what with a study, decided here and nowhere else. A stranger, a missing study and a
 * malformed id get the same 404 (so ids cannot be probed), and every refusal is audited.
 */
export function createAccessService(deps: { repo: AccessRepository; audit: AuditRecorder }) {
  /** Which actions the principal's relation to a visible study allows (see StudyAction). */
  function allows(p: Principal, study: StudyRow, action: StudyAction): boolean {
    // A link reads, and downloads when its owner allowed it.
    if (p.link) return action === 'read' || (action === 'download' && p.link.allowDownload);
    // Viewer grants and vendor credentials only read.
    if (p.via === 'grant' || p.via === 'vendor') return action === 'read';
    if (relationOf(p, study) === 'owner') return action !== 'request_ownership';
    return RECIPIENT_ACTIONS.has(action);
  }

  const service = {
    /**
     * The study if the principal may do `action` with it; otherwise audits the refusal as
     * `auditAction` (default `study.<action>`) and throws the one 404.
     */
    async requireStudyAccess(
      p: Principal,
      action: StudyAction,
      target: StudyTarget,
      meta: RequestMeta,
      opts: { auditAction?: string; notFoundMessage?: string } = {},
    ): Promise<StudyRow> {
      const wellFormed =
        'id' in target ? UUID.test(target.id) : target.uid.length <= 64 && DICOM_UID.test(target.uid);
      const study = wellFormed
        ? await deps.repo.findVisible(p, target, { includeDeleting: action === 'delete' })
        : undefined;
      // Only a share lets a recipient ask for the study; an order's professional reads it, no more.
      const permitted =
        study &&
        allows(p, study, action) &&
        (action !== 'request_ownership' || (await deps.repo.isSharedWith(p.userId, study.id)));
      if (permitted) return study;
      const named = 'id' in target ? target.id : target.uid;
      const actor = auditActor(p);
      await deps.audit({
        actorId: actor.actorId,
        actorRole: actor.actorRole,
        action: opts.auditAction ?? `study.${action}`,
        targetType: 'study',
        targetId: study?.id ?? named.slice(0, 64),
        outcome: 'denied',
        requestId: meta.requestId,
        ip: meta.ip,
        details: {
          via: p.via,
          ...(p.vendor ? { orderId: p.vendor.orderId } : {}),
          ...(actor.link ?? {}),
          ...('uid' in target ? { studyInstanceUid: named.slice(0, 64) } : {}),
        },
      });
      throw new AppError('NOT_FOUND', opts.notFoundMessage ?? STUDY_NOT_FOUND);
    },

    /**
     * A study the principal owns (ordering an analysis for it, attaching it to an order). A study
     * only shared with them is the same 404 as a stranger's; that refusal is audited as
     * `auditAction` with reason not_owner, against `auditTarget` (default: the study).
     */
    async requireOwner(
      p: Principal,
      studyId: string,
      meta: RequestMeta,
      opts: { auditAction: string; auditTarget?: { type: string; id: string } },
    ): Promise<StudyRow> {
      const study = await service.requireStudyAccess(p, 'read', { id: studyId }, meta, {
        auditAction: opts.auditAction,
      });
      if (relationOf(p, study) === 'owner') return study;
      const target = opts.auditTarget ?? { type: 'study', id: study.id };
      await deps.audit({
        actorId: p.userId,
        actorRole: p.role,
        action: opts.auditAction,
        outcome: 'denied',
        targetType: target.type,
        targetId: target.id.slice(0, 64),
        requestId: meta.requestId,
        ip: meta.ip,
        details: { reason: 'not_owner' },
      });
      throw new AppError('NOT_FOUND', STUDY_NOT_FOUND);
    },

    /** Every study the principal may read (DICOMweb searches). */
    visibleStudies(p: Principal): Promise<StudyRow[]> {
      return deps.repo.listVisible(p);
    },

    /** Changes whenever `sharedWith(userId)` may answer differently (for caching that list). */
    sharedWithVersion(
      userId: string,
      emailNormalized: string,
    ): Promise<{ version: string; pending: number; owners: string[] }> {
      return deps.repo.sharedWithFingerprint(userId, emailNormalized);
    },

    /** The studies shared with this user that they may open now (Shared Studies tab). */
    sharedWith(userId: string): Promise<SharedStudyRow[]> {
      return deps.repo.listSharedWith(userId);
    },
  };
  return service;
}
export type AccessService = ReturnType<typeof createAccessService>;
