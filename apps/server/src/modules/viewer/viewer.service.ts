import type { JobQueue } from '../../jobs/queue';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { AccessService } from '../access';
import { sessionPrincipal, type Principal } from '../access';
import type { StudyRow } from '../access';
import type { TransferStudyJob } from './transfer-study.job';
import type { ViewerGrants } from './viewer-grants';
import type { ViewerRepository } from './viewer.repository';

interface Deps {
  repo: ViewerRepository;
  access: AccessService;
  grants: ViewerGrants;
  queue: JobQueue;
  job: TransferStudyJob;
  audit: AuditRecorder;
  viewerPublicUrl: string;
  /** Told of every open (modules/sharing turns a recipient's first open into a receipt). */
  onOpen?: (p: Principal, study: StudyRow) => Promise<void>;
}

/** Opening a study in the viewer: preparation (transfer-study) and the viewer address with its credential. */
export function createViewerService(deps: Deps) {
  const event = (
    auth: AuthenticatedSession,
    meta: RequestMeta,
    action: string,
    studyId: string,
    details?: Record<string, unknown>,
  ) =>
    deps.audit({
      actorId: auth.user.id,
      actorRole: auth.user.role,
      action,
      targetType: 'study',
      targetId: studyId,
      outcome: 'success',
      requestId: meta.requestId,
      ip: meta.ip,
      ...(details ? { details } : {}),
    });

  return {
    /** Queues preparation unless the study is already prepared; repeated calls share one job. */
    async requestTransfer(auth: AuthenticatedSession, studyId: string, meta: RequestMeta) {
      const study = await deps.access.requireStudyAccess(
        sessionPrincipal(auth),
        'read',
        { id: studyId },
        meta,
      );
      if (study.transferStatus === 'completed') {
        await event(auth, meta, 'study.transfer', study.id, { queued: false });
        return { message: 'The study is ready to view.', jobId: null };
      }
      await deps.repo.setTransferStatus(study.id, 'pending');
      const jobId = await deps.queue.send(
        deps.job,
        // The requester's job: their launcher waits for their own pending transfers.
        { studyId: study.id, userId: auth.user.id },
        { singletonKey: `transfer:${study.id}` },
      );
      await event(auth, meta, 'study.transfer', study.id, { queued: true });
      return { message: 'The study is being prepared for viewing.', jobId };
    },

    /** The address that opens the study in the viewer, carrying a credential for that study only. */
    async viewerUrl(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
    ): Promise<{ url: string; expiresAt: string }> {
      const principal = sessionPrincipal(auth);
      const study = await deps.access.requireStudyAccess(principal, 'read', { id: studyId }, meta);
      await deps.onOpen?.(principal, study);
      const { token, expiresAt } = await deps.grants.issue(auth.user.id, study.id, auth.session.id);
      await event(auth, meta, 'study.view', study.id);
      // The credential rides in the fragment: browsers never send it to a server or in a Referer.
      const url = `${deps.viewerPublicUrl}/viewer?StudyInstanceUIDs=${encodeURIComponent(study.studyInstanceUid)}#grant=${token}`;
      return { url, expiresAt: expiresAt.toISOString() };
    },
  };
}
export type ViewerService = ReturnType<typeof createViewerService>;
