import { normalizeEmail } from '@mi/contracts/rules';
import type { ChangeFeed } from '../../db/change-feed';
import { AppError } from '../../http/app-error';
import type { AccessService } from '../access';
import { sessionPrincipal } from '../access';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { Throttle } from '../rate-limit';
import type { MailService } from '../mail';
import { ownershipRequestEmail } from '../mail';
import type { NotificationsService } from '../notifications';
import { exceedsQuota, quotaGB, quotaOf } from '../accounts';
import type { UserRow, UsersRepository } from '../accounts';
import type { SharingRepository, TransferRefusal } from './sharing.repository';

interface Deps {
  repo: SharingRepository;
  access: AccessService;
  users: Pick<UsersRepository, 'findById' | 'findByEmail'>;
  notifications: Pick<NotificationsService, 'notify'>;
  mail: Pick<MailService, 'send'>;
  audit: AuditRecorder;
  throttle: Throttle;
  changes: Pick<ChangeFeed, 'settled'>;
  appUrl: string;
  defaultMaxStorageBytes: number;
  now: () => Date;
}

export const OWNERSHIP_REQUESTS_PER_HOUR = 20;
const displayName = (u: { name: string | null; email: string }) => u.name?.trim() || u.email;
const receives = (u: UserRow | undefined): u is UserRow =>
  !!u && u.accountStatus === 'active' && u.emailVerifiedAt !== null;

/**
 * The new owner a transfer names: a confirmed account by email, or a recipient whose open request
 * the owner is approving.
 */
async function newOwnerFor(
  deps: Deps,
  owner: UserRow,
  studyId: string,
  body: { requesterEmail: string } | { requesterId: string },
): Promise<{ recipient: UserRow; approving: boolean }> {
  let recipient: UserRow | undefined;
  let approving = false;
  if ('requesterEmail' in body) {
    const email = body.requesterEmail.trim();
    const found = await deps.users.findByEmail(normalizeEmail(email));
    if (found?.id === owner.id) throw new AppError('VALIDATION_ERROR', 'You already own this study.');
    if (!receives(found))
      throw new AppError(
        'NOT_FOUND',
        `No account with the confirmed email address ${email} was found. Ask them to sign up and confirm their email first.`,
      );
    recipient = found;
  } else {
    const found = /^[0-9a-f-]{36}$/i.test(body.requesterId)
      ? await deps.users.findById(body.requesterId)
      : undefined;
    // Only a recipient's open request makes an account id a valid new owner.
    if (
      !found ||
      !(await deps.repo.hasOpenRequest(studyId, found.id, owner.id)) ||
      found.accountStatus !== 'active'
    )
      throw new AppError('NOT_FOUND', 'There is no open ownership request for this study.');
    recipient = found;
    approving = true;
  }
  return { recipient, approving };
}

/** Records a refused transfer and says why: the study left, the new owner has no room, or has it. */
async function refuseTransfer(
  deps: Deps,
  owner: UserRow,
  studyId: string,
  recipient: UserRow,
  reason: TransferRefusal,
  meta: RequestMeta,
): Promise<never> {
  await deps.audit({
    actorId: owner.id,
    actorRole: owner.role,
    action: 'study.ownership_transfer',
    targetType: 'study',
    targetId: studyId,
    outcome: 'failure',
    requestId: meta.requestId,
    ip: meta.ip,
    details: { reason, newOwnerId: recipient.id },
  });
  if (reason === 'no_room')
    throw new AppError(
      'CONFLICT',
      `${recipient.email} does not have enough free storage for this study (limit ${quotaGB(
        quotaOf(recipient, deps.defaultMaxStorageBytes).maxBytes,
      )} GB).`,
    );
  if (reason === 'duplicate') throw new AppError('CONFLICT', `${recipient.email} already has this study.`);
  throw new AppError('NOT_FOUND', 'Study not found or invalid study ID.');
}

/** The owner moves the study: to a confirmed account by email, or approving a recipient's request. */
function createOwnershipTransfer(deps: Deps) {
  const { audit } = deps;

  return {
    async transfer(
      auth: AuthenticatedSession,
      body: { studyId: string; requesterEmail: string } | { studyId: string; requesterId: string },
      meta: RequestMeta,
    ): Promise<{ message: string; newOwnerId: string }> {
      const owner = auth.user;
      const study = await deps.access.requireStudyAccess(
        sessionPrincipal(auth),
        'transfer',
        { id: body.studyId },
        meta,
      );
      const { recipient, approving } = await newOwnerFor(deps, owner, study.id, body);

      const moved = await deps.repo.transfer(
        study.id,
        owner.id,
        recipient.id,
        (r, bytes) => !exceedsQuota(quotaOf(r, deps.defaultMaxStorageBytes), bytes),
        deps.now(),
      );
      // Both owners' lists and the recipients' Shared Studies change; the next reads see it.
      await deps.changes.settled();
      if (!moved.ok) return refuseTransfer(deps, owner, study.id, recipient, moved.reason, meta);
      await audit({
        actorId: owner.id,
        actorRole: owner.role,
        action: 'study.ownership_transfer',
        targetType: 'study',
        targetId: study.id,
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
        details: {
          fromId: owner.id,
          newOwnerId: recipient.id,
          email: recipient.email,
          approvedRequest: approving,
        },
      });
      await deps.notifications.notify(recipient.id, {
        type: 'message',
        title: 'You are the owner of a study',
        description: `${displayName(owner)} transferred a study to you. It is now in My Studies.`,
        path: `/studies?newOwnerId=${recipient.id}&mode=transfer_ownership`,
      });
      return {
        message: `Ownership of the study was transferred to ${recipient.email}.`,
        newOwnerId: recipient.id,
      };
    },
  };
}

/** A recipient asks the owner for the study. */
function createOwnershipRequests(deps: Deps) {
  const { audit } = deps;

  return {
    /** A recipient asks the owner for the study: notified in the app and by email with the approve link. */
    async request(
      auth: AuthenticatedSession,
      studyId: string,
      meta: RequestMeta,
    ): Promise<{ message: string }> {
      const me = auth.user;
      const p = sessionPrincipal(auth);
      const study = await deps.access.requireStudyAccess(p, 'read', { id: studyId }, meta, {
        auditAction: 'study.ownership_request',
      });
      if (study.ownerId === me.id) throw new AppError('CONFLICT', 'You already own this study.');
      await deps.access.requireStudyAccess(p, 'request_ownership', { id: study.id }, meta);
      const key = `ownership-request:user:${me.id}`;
      if ((await deps.throttle.count(key, 3_600_000)) >= OWNERSHIP_REQUESTS_PER_HOUR)
        throw new AppError(
          'RATE_LIMITED',
          'You have sent too many ownership requests. Please try again later.',
        );
      const opened = await deps.repo.openOwnershipRequest(study.id, me.id, study.ownerId);
      if (!opened) return { message: 'Your request was already sent to the owner.' };
      await deps.throttle.hit(key);
      await audit({
        actorId: me.id,
        actorRole: me.role,
        action: 'study.ownership_request',
        targetType: 'study',
        targetId: study.id,
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
      });
      const path = `/studies?studyId=${study.id}&requesterId=${me.id}&ownerId=${study.ownerId}`;
      const owner = await deps.users.findById(study.ownerId);
      const requester = displayName(me);
      await deps.notifications.notify(study.ownerId, {
        type: 'message',
        title: 'Ownership requested',
        description: `${requester} asks to become the owner of a study you shared with them.`,
        path,
      });
      // The request must reach the owner whatever their email preference: it carries the approve link.
      if (owner && !owner.emailNotifications)
        await deps.mail.send(
          owner.email,
          ownershipRequestEmail({ requester, link: new URL(path, deps.appUrl).toString() }),
        );
      return { message: 'Your ownership request was sent to the owner.' };
    },
  };
}

/**
 * Moving a study to another owner: by the owner's Transfer Ownership dialog (an email), or by the
 * owner approving a recipient's request (the emailed link). The move itself is one transaction
 * (SharingRepository.transfer).
 */
export function createOwnershipService(deps: Deps) {
  return {
    ...createOwnershipTransfer(deps),
    ...createOwnershipRequests(deps),
  };
}
export type OwnershipService = ReturnType<typeof createOwnershipService>;
