import { normalizeEmail } from '@mi/contracts/rules';
import {
  SHARING_OFF_MESSAGE,
  type AccessReceipts,
  type CreateShareBody,
  createShareBodySchema,
  type Provider,
  type Share,
  type SharedStudy,
} from '@mi/contracts/sharing';
import type { ChangeFeed } from '../../db/change-feed';
import { AppError } from '../../http/app-error';
import { isNotModified } from '../../http/serialized-list';
import type { AccessService } from '../access';
import { relationOf } from '../access';
import type { StudyRow } from '../access';
import { sessionPrincipal, type Principal } from '../access';
import type { AuditRecorder } from '../audit';
import type { DeidentifyService } from '../deidentify';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { Secrets } from '../auth';
import type { Throttle } from '../rate-limit';
import type { MailService } from '../mail';
import { studySharedInvitationEmail } from '../mail';
import type { NotificationsService } from '../notifications';
import { toStudyListItemDto } from '../studies';
import type { UserRow, UsersRepository } from '../accounts';
import type { AuditBuffer } from '../studies';
import { createSharedListCache, type CachedSharedList } from './shared-list-cache';
import type { ShareRow, ShareView, SharingRepository } from './sharing.repository';

/** What sharing needs from the provider directory (modules/providers), wired in services.ts. */
export interface ProviderDirectory {
  /** A provider this user may share with: a directory entry or their own contact. */
  findForUser(userId: string, providerId: string): Promise<Provider | undefined>;
  /** The user's provider for an email (a directory entry with it, or a new contact), in their network. */
  ensureContact(userId: string, email: string, meta?: RequestMeta): Promise<Provider>;
}

interface Deps {
  repo: SharingRepository;
  access: AccessService;
  users: Pick<UsersRepository, 'findById' | 'findByEmail' | 'update'>;
  providers: ProviderDirectory;
  notifications: Pick<NotificationsService, 'notify'>;
  mail: Pick<MailService, 'send'>;
  audit: AuditRecorder;
  throttle: Throttle;
  secrets: Pick<Secrets, 'hashCode' | 'sameHash'>;
  /** De-identified copies to share instead of the study (modules/deidentify). */
  deidentified: Pick<DeidentifyService, 'prepare'>;
  /** Change notifications that keep the Shared Studies lists cache current. */
  changes: ChangeFeed;
  /** Batched audit writes for the often-read Shared Studies list. */
  auditBuffer: Pick<AuditBuffer, 'record'>;
  appUrl: string;
  now: () => Date;
}

/** Shares a user may create per hour; beyond it they are told to wait. */
export const SHARES_PER_HOUR = 60;
export const SHARE_RATE_MESSAGE =
  'You have shared too many studies in the last hour. Please try again later.';
const RECEIPT_EVENTS = 200;

/** A confirmed, active account: the only kind that receives what is addressed to an email. */
const receives = (u: UserRow | undefined): u is UserRow =>
  !!u && u.accountStatus === 'active' && u.emailVerifiedAt !== null;

type ShareResult = { message: string; data?: Share; pending?: boolean; jobId?: string };

const displayName = (u: { name: string | null; email: string }) => u.name?.trim() || u.email;

/**
 * Study shares: creating them (by email or provider), listing them for the owner, the recipient and
 * a provider, linking an emailed share to the account that signs up for it, revoking, the first-open
 * receipt, and the owner's access receipts. Who may open a study is decided by modules/access.
 */
export function createSharingService(deps: Deps) {
  const { repo, audit } = deps;
  const sharedLists = createSharedListCache({ feed: deps.changes });

  const record = (
    actor: { id: string; role: string | null },
    meta: RequestMeta,
    action: string,
    studyId: string,
    details?: Record<string, unknown>,
  ) =>
    audit({
      actorId: actor.id,
      actorRole: actor.role,
      action,
      targetType: 'study',
      targetId: studyId,
      outcome: 'success',
      requestId: meta.requestId,
      ip: meta.ip,
      ...(details ? { details } : {}),
    });

  /** The signed part of an emailed share link: proves whoever holds it received that email. */
  const linkToken = (shareId: string, emailNormalized: string) =>
    deps.secrets.hashCode('share-link', `${shareId}:${emailNormalized}`);

  async function toShareDtos(views: ShareView[]): Promise<Share[]> {
    const providers = new Map<string, Provider>();
    for (const v of views) {
      const id = v.share.providerId;
      if (!id || providers.has(id)) continue;
      const found = await deps.providers.findForUser(v.share.ownerId, id);
      if (found) providers.set(id, found);
    }
    return views.map((v) => ({
      _id: v.share.id,
      id: v.share.id,
      email: v.share.email,
      targetUser: v.target ? { _id: v.target.id, email: v.target.email, name: v.target.name } : null,
      createdAt: v.share.createdAt.toISOString(),
      accepted: v.share.targetUserId !== null,
      provider: (v.share.providerId && providers.get(v.share.providerId)) || null,
      study: {
        _id: v.study.id,
        studyId: v.study.studyInstanceUid,
        metadata: {
          studyDescription: v.study.studyDescription,
          patientName: v.study.patientName,
          modality: v.study.modalities.length ? v.study.modalities.join('/') : null,
          studyDate: v.study.studyDate,
        },
      },
    }));
  }

  async function requireShareOfOwner(auth: AuthenticatedSession, shareId: string, meta: RequestMeta) {
    const share = /^[0-9a-f-]{36}$/i.test(shareId) ? await repo.findShare(shareId) : undefined;
    if (!share || share.revokedAt || share.ownerId !== auth.user.id) {
      await audit({
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

  /**
   * A de-identified share: the study's de-identified copy is shared instead (modules/deidentify makes
   * it first when there is none, and the share follows by `shareCopy` when it is ready).
   */
  async function shareDeidentified(
    owner: UserRow,
    study: StudyRow,
    body: CreateShareBody,
    meta: RequestMeta,
  ): Promise<ShareResult> {
    if ('email' in body && normalizeEmail(body.email) === owner.emailNormalized)
      throw new AppError('VALIDATION_ERROR', 'You cannot share a study with yourself.');
    if ('providerId' in body && !(await deps.providers.findForUser(owner.id, body.providerId)))
      throw new AppError('NOT_FOUND', 'Provider not found.');
    const { studyId: _source, deidentified: _flag, ...recipient } = body;
    const prepared = await deps.deidentified.prepare(owner.id, [study.id], { kind: 'share', recipient });
    if ('ready' in prepared) {
      const done = await shareAs(owner, { ...body, studyId: prepared.ready[0]!, deidentified: false }, meta);
      return { ...done, message: done.message.replace('your study', 'a de-identified copy of your study') };
    }
    await record(owner, meta, 'study.share.deidentified', study.id, { jobId: prepared.queued });
    const who = 'email' in body ? body.email.trim() : 'your provider';
    return {
      message: `A de-identified copy of this study is being made; it will be shared with ${who} when it is ready.`,
      pending: true,
      jobId: prepared.queued,
    };
  }

  /** Shares one study with one recipient (an email, or a provider of the owner's). */
  async function shareAs(owner: UserRow, body: CreateShareBody, meta: RequestMeta): Promise<ShareResult> {
    const study = await deps.access.requireStudyAccess(
      { userId: owner.id, role: owner.role, via: 'session', studyId: null },
      'share',
      { id: body.studyId },
      meta,
    );
    if (!owner.shareMedicalData) throw new AppError('FORBIDDEN', SHARING_OFF_MESSAGE);
    const throttleKey = `share:user:${owner.id}`;
    if ((await deps.throttle.count(throttleKey, 3_600_000)) >= SHARES_PER_HOUR)
      throw new AppError('RATE_LIMITED', SHARE_RATE_MESSAGE);
    if (body.deidentified) return shareDeidentified(owner, study, body, meta);

    let email: string;
    let providerId: string | null = null;
    let linkedUserId: string | null = null;
    if ('providerId' in body) {
      const provider = await deps.providers.findForUser(owner.id, body.providerId);
      if (!provider) throw new AppError('NOT_FOUND', 'Provider not found.');
      email = provider.contactInformation.email;
      providerId = provider.id;
      linkedUserId = provider.onPlatform ? await repo.linkedAccountOf(provider.id) : null;
    } else {
      email = body.email.trim();
      if (body.addProvider) providerId = (await deps.providers.ensureContact(owner.id, email, meta)).id;
    }
    const emailNormalized = normalizeEmail(email);
    if (emailNormalized === owner.emailNormalized)
      throw new AppError('VALIDATION_ERROR', 'You cannot share a study with yourself.');

    // A provider linked by an admin to a professional account reaches that person; otherwise the
    // email reaches only the account that confirmed it.
    const linked = linkedUserId ? await deps.users.findById(linkedUserId) : undefined;
    const byEmail = await deps.users.findByEmail(emailNormalized);
    const recipient = receives(linked) ? linked : receives(byEmail) ? byEmail : undefined;
    if (recipient?.id === owner.id)
      throw new AppError('VALIDATION_ERROR', 'You cannot share a study with yourself.');

    const share = await repo.insertShare({
      studyId: study.id,
      ownerId: owner.id,
      email,
      emailNormalized,
      providerId,
      targetUserId: recipient?.id ?? null,
    });
    if (!share) throw new AppError('CONFLICT', `This study is already shared with ${email}.`);
    // The recipient's next read of Shared Studies (any process) sees it.
    await deps.changes.settled();
    await deps.throttle.hit(throttleKey);
    await record(owner, meta, 'study.share', study.id, {
      shareId: share.id,
      email,
      ...(providerId ? { providerId } : {}),
      delivered: recipient ? 'account' : 'invitation',
    });

    const sharedBy = displayName(owner);
    if (recipient) {
      await deps.notifications.notify(recipient.id, {
        type: 'message',
        title: 'A study was shared with you',
        description: `${sharedBy} shared a study with you. Find it under Shared Studies in My Studies.`,
        path: '/studies?tab=shared_studies',
      });
    } else {
      const link = new URL('/', deps.appUrl);
      link.searchParams.set('mode', 'shared_studies');
      link.searchParams.set('shareId', share.id);
      link.searchParams.set('shareToken', linkToken(share.id, emailNormalized));
      link.searchParams.set('email', email);
      await deps.mail.send(email, studySharedInvitationEmail({ sharedBy, link: link.toString() }));
    }
    const view = await repo.findView(share.id);
    const [dto] = await toShareDtos([view!]);
    return { message: `You invited ${email} to view your study`, data: dto! };
  }

  return {
    /** Shares one study with one recipient (an email, or a provider of the user's). */
    share: (auth: AuthenticatedSession, body: CreateShareBody, meta: RequestMeta) =>
      shareAs(auth.user, body, meta),

    /**
     * The share a de-identified share asked for, once its copy exists (the deidentified-send job):
     * checked again as the owner is now (sharing still on, account still active).
     */
    async shareCopy(ownerId: string, copyStudyId: string, recipient: Record<string, unknown>) {
      const owner = await deps.users.findById(ownerId);
      if (!owner || owner.accountStatus !== 'active')
        throw new AppError('FORBIDDEN', 'The account is not active.');
      const body = createShareBodySchema.parse({ ...recipient, studyId: copyStudyId });
      await shareAs(owner, body, { requestId: `deidentified-share:${copyStudyId}`, ip: '' });
    },

    /** Ends a share at once: the recipient's list, viewer and API calls stop on their next request. */
    async revoke(
      auth: AuthenticatedSession,
      shareId: string,
      meta: RequestMeta,
    ): Promise<{ message: string }> {
      const share = await requireShareOfOwner(auth, shareId, meta);
      const revoked = await repo.revoke(share.id, deps.now());
      if (!revoked) throw new AppError('NOT_FOUND', 'Share not found.');
      await deps.changes.settled();
      await record(auth.user, meta, 'study.unshare', share.studyId, {
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
      return { data: await toShareDtos(await repo.listForStudy(study.id)) };
    },

    /** What the caller shares with one provider of theirs (View Shared Studies). */
    async listForProvider(auth: AuthenticatedSession, providerId: string): Promise<{ data: Share[] }> {
      const provider = /^[0-9a-f-]{36}$/i.test(providerId)
        ? await deps.providers.findForUser(auth.user.id, providerId)
        : undefined;
      if (!provider) throw new AppError('NOT_FOUND', 'Provider not found.');
      return { data: await toShareDtos(await repo.listForProvider(auth.user.id, provider.id)) };
    },

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
          return { json: JSON.stringify({ data }), count: data.length };
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
        details: { count: list.count },
      });
      const notModified = isNotModified(ifNoneMatch, list);
      return { ...list, notModified };
    },

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
        deps.secrets.sameHash(linkToken(share.id, share.emailNormalized), body.token);
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
      await record(auth.user, meta, 'study.receipts', study.id);
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
export type SharingService = ReturnType<typeof createSharingService>;
export type { ShareRow };

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
