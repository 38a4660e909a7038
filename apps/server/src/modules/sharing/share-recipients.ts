import type { SharedStudy } from '@mi/contracts/sharing';
import { AppError } from '../../http/app-error';
import { isNotModified, type ListPage, serializeItems } from '../../http/serialized-list';
import type { RequestMeta } from '../../http/request-meta';
import { relationOf, type Principal, type StudyRow } from '../access';
import type { AuthenticatedSession } from '../auth';
import { toStudyListItemDto } from '../studies';
import { createSharedListCache, type CachedSharedList } from './shared-list-cache';
import { displayName, linkToken, receives, type SharingDeps } from './sharing-context';

/** The recipient's Shared Studies list, and the owner's first-open receipt when they open one. */
export function createSharedWithMe(deps: SharingDeps) {
  const { repo, audit } = deps;
  const sharedLists = createSharedListCache({ feed: deps.changes });
  return {
    /**
     * The studies shared with the caller (Shared Studies tab), serialised and cached while its
     * fingerprint stands. Shares that waited for the caller's email are attached first, now that the
     * account has confirmed it.
     */
    async listSharedWithMe(
      auth: AuthenticatedSession,
      userId: string,
      meta: RequestMeta,
      ifNoneMatch?: string,
      page?: ListPage,
    ): Promise<CachedSharedList & { notModified: boolean }> {
      const me = auth.user;
      if (userId !== me.id) {
        await audit({
          actorId: me.id,
          actorRole: me.role,
          action: 'study.list_shared',
          targetType: 'user',
          targetId: userId.slice(0, 64),
          outcome: 'denied',
          requestId: meta.requestId,
          ip: meta.ip,
        });
        throw new AppError('NOT_FOUND', 'Not found');
      }
      const list = await sharedLists.get(
        me.id,
        async () => {
          const first = await deps.access.sharedWithVersion(me.id, me.emailNormalized);
          // Shares that waited for this email reach the account once it has confirmed it.
          if (first.pending === 0 || !receives(me)) return first;
          if ((await repo.attachPendingByEmail(me.emailNormalized, me.id)) === 0) return first;
          return deps.access.sharedWithVersion(me.id, me.emailNormalized);
        },
        async () => {
          const rows = await deps.access.sharedWith(me.id);
          const data: SharedStudy[] = rows.map((r) => ({
            _id: r.study.id,
            sharedAt: r.sharedAt.toISOString(),
            owner: { name: r.ownerName, email: r.ownerEmail },
            study: toStudyListItemDto(r.study),
          }));
          return serializeItems(data);
        },
      );
      // Patient data was read: batched, like the My Studies list's record.
      deps.auditBuffer.record({
        actorId: me.id,
        actorRole: me.role,
        action: 'study.list_shared',
        targetType: 'user',
        targetId: me.id,
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
        details: { count: list.count, ...(page ? { page } : {}) },
      });
      const notModified = isNotModified(ifNoneMatch, list, page);
      return { ...list, notModified };
    },

    /**
     * A recipient opened a shared study (the viewer): the owner hears of it the first time only.
     * Called by modules/viewer through the composition root.
     */
    async recordOpen(p: Principal, study: StudyRow): Promise<void> {
      if (relationOf(p, study) !== 'recipient') return;
      const first = await repo.markFirstOpen(study.id, p.userId, deps.now());
      if (!first) return;
      const reader = await deps.users.findById(p.userId);
      await deps.notifications.notify(study.ownerId, {
        type: 'message',
        title: 'Your shared study was opened',
        description: `${reader ? displayName(reader) : first.email} opened a study you shared for the first time.`,
        path: '/studies',
      });
    },
  };
}

/** A recipient claiming an emailed share for the account they signed in or up with. */
export function createShareClaim(deps: SharingDeps) {
  const { repo, audit } = deps;
  return {
    /**
     * Gives an emailed share to the signed-in account (the link's `shareId` after sign-in or sign-up).
     * The account's email must be the one the share was sent to, and either confirmed or proved by
     * the link's token, which then confirms it.
     */
    async link(
      auth: AuthenticatedSession,
      shareId: string,
      body: { targetUser: string; token?: string },
      meta: RequestMeta,
    ): Promise<{ message: string }> {
      const me = auth.user;
      const share = /^[0-9a-f-]{36}$/i.test(shareId) ? await repo.findShare(shareId) : undefined;
      const tokenOk =
        !!share &&
        !!body.token &&
        deps.secrets.sameHash(linkToken(deps, share.id, share.emailNormalized), body.token);
      const usable =
        share &&
        !share.revokedAt &&
        body.targetUser === me.id &&
        share.emailNormalized === me.emailNormalized &&
        (share.targetUserId === null || share.targetUserId === me.id) &&
        (me.emailVerifiedAt !== null || tokenOk);
      if (!usable) {
        await audit({
          actorId: me.id,
          actorRole: me.role,
          action: 'study.share_link',
          targetType: 'share',
          targetId: shareId.slice(0, 64),
          outcome: 'denied',
          requestId: meta.requestId,
          ip: meta.ip,
        });
        throw new AppError('NOT_FOUND', 'This share is no longer available.');
      }
      if (!me.emailVerifiedAt) {
        const at = deps.now();
        await deps.users.update(me.id, { emailVerifiedAt: at, updatedAt: at });
      }
      if (share.targetUserId === null) await repo.attach(share.id, me.id);
      await repo.attachPendingByEmail(me.emailNormalized, me.id);
      await deps.changes.settled();
      await audit({
        actorId: me.id,
        actorRole: me.role,
        action: 'study.share_link',
        targetType: 'study',
        targetId: share.studyId,
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
        details: { shareId: share.id },
      });
      return { message: 'The shared study is now in your Shared Studies.' };
    },
  };
}
