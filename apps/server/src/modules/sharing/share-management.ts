import type { AccessReceipts, Share } from '@mi/contracts/sharing';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import { sessionPrincipal } from '../access';
import type { AuthenticatedSession } from '../auth';
import { displayName, RECEIPT_EVENTS, record, type SharingDeps, toShareDtos } from './sharing-context';

async function requireShareOfOwner(
  deps: SharingDeps,
  auth: AuthenticatedSession,
  shareId: string,
  meta: RequestMeta,
) {
  const share = /^[0-9a-f-]{36}$/i.test(shareId) ? await deps.repo.findShare(shareId) : undefined;
  if (!share || share.revokedAt || share.ownerId !== auth.user.id) {
    await deps.audit({
      actorId: auth.user.id,
      actorRole: auth.user.role,
      action: 'study.unshare',
      targetType: 'share',
      targetId: shareId.slice(0, 64),
      outcome: 'denied',
      requestId: meta.requestId,
      ip: meta.ip,
    });
    throw new AppError('NOT_FOUND', 'Share not found.');
  }
  // The study must still be the caller's to manage (the one access rule decides).
  await deps.access.requireStudyAccess(sessionPrincipal(auth), 'share', { id: share.studyId }, meta);
  return share;
}

/** The owner's side of their shares: listing, revoking, and who opened what (access receipts). */
export function createShareManagement(deps: SharingDeps) {
  const { repo } = deps;
  return {
    /** Ends a share at once: the recipient's list, viewer and API calls stop on their next request. */
    async revoke(
      auth: AuthenticatedSession,
      shareId: string,
      meta: RequestMeta,
    ): Promise<{ message: string }> {
      const share = await requireShareOfOwner(deps, auth, shareId, meta);
      const revoked = await repo.revoke(share.id, deps.now());
      if (!revoked) throw new AppError('NOT_FOUND', 'Share not found.');
      await deps.changes.settled();
      await record(deps, auth.user, meta, 'study.unshare', share.studyId, {
        shareId: share.id,
        email: share.email,
      });
      if (share.targetUserId)
        await deps.notifications.notify(share.targetUserId, {
          type: 'message',
          title: 'Access to a shared study ended',
          description: `${displayName(auth.user)} stopped sharing a study with you.`,
          path: '/studies?tab=shared_studies',
        });
      return { message: 'Provider access revoked.' };
    },

    /** The live shares of one of the caller's studies (Currently Shared With). */
    async listForStudy(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
    ): Promise<{ data: Share[] }> {
      const study = await deps.access.requireStudyAccess(
        sessionPrincipal(auth),
        'share',
        { id: studyId },
        meta,
        {
          auditAction: 'study.shares',
        },
      );
      return { data: await toShareDtos(deps, await repo.listForStudy(study.id)) };
    },

    /** What the caller shares with one provider of theirs (View Shared Studies). */
    async listForProvider(auth: AuthenticatedSession, providerId: string): Promise<{ data: Share[] }> {
      const provider = /^[0-9a-f-]{36}$/i.test(providerId)
        ? await deps.providers.findForUser(auth.user.id, providerId)
        : undefined;
      if (!provider) throw new AppError('NOT_FOUND', 'Provider not found.');
      return { data: await toShareDtos(deps, await repo.listForProvider(auth.user.id, provider.id)) };
    },
    /** Who can open one of the caller's studies now, and what was done with it (owner only). */
    async receipts(auth: AuthenticatedSession, studyId: string, meta: RequestMeta): Promise<AccessReceipts> {
      const study = await deps.access.requireStudyAccess(
        sessionPrincipal(auth),
        'receipts',
        { id: studyId },
        meta,
      );
      const [shares, events] = await Promise.all([
        repo.listForStudy(study.id),
        repo.receiptEvents(study.id, RECEIPT_EVENTS),
      ]);
      await record(deps, auth.user, meta, 'study.receipts', study.id);
      return {
        current: shares.map((v) => ({
          shareId: v.share.id,
          email: v.share.email,
          name: v.target?.name ?? null,
          accepted: v.share.targetUserId !== null,
          sharedAt: v.share.createdAt.toISOString(),
          firstOpenedAt: v.share.firstOpenedAt?.toISOString() ?? null,
        })),
        events: events.map((e) => ({
          at: e.at.toISOString(),
          action: describeAction(e.action, e.outcome),
          actor:
            e.actorId === auth.user.id
              ? 'You'
              : e.actorEmail
                ? e.actorName?.trim() || e.actorEmail
                : typeof e.details?.recipient === 'string'
                  ? `${e.details.recipient} (by link)`
                  : 'A former account',
          detail: receiptDetail(e.details),
        })),
      };
    },
  };
}

const ACTION_WORDS: Record<string, string> = {
  'study.view': 'Opened in the viewer',
  'study.download': 'Downloaded',
  'study.share': 'Shared',
  'study.unshare': 'Access revoked',
  'study.ownership_request': 'Requested ownership',
  'study.ownership_transfer': 'Ownership transferred',
  'link.create': 'Link created',
  'link.pause': 'Link paused',
  'link.resume': 'Link resumed',
  'link.extend': 'Link extended',
  'link.revoke': 'Link revoked',
  'link.open': 'Opened by link',
  'link.file': 'Link file fetched',
  'link.view': 'Opened in the viewer by link',
  'link.passcode': 'Wrong link passcode',
};
function describeAction(action: string, outcome: string): string {
  const words = ACTION_WORDS[action] ?? action;
  return outcome === 'success' || action === 'link.passcode' ? words : `${words} (refused)`;
}
/** The second line of a receipt: whom a share named, or which link (its label) was used. */
function receiptDetail(details: Record<string, unknown> | null): string | null {
  if (typeof details?.email === 'string') return details.email;
  if (typeof details?.linkId === 'string')
    return typeof details.label === 'string' ? `Link “${details.label}”` : 'Link without a label';
  return null;
}
