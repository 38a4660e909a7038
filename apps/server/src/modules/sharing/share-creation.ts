import { normalizeEmail } from '@mi/contracts/rules';
import { SHARING_OFF_MESSAGE, type CreateShareBody, createShareBodySchema } from '@mi/contracts/sharing';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { StudyRow } from '../access';
import type { AuthenticatedSession } from '../auth';
import type { UserRow } from '../accounts';
import { studySharedInvitationEmail } from '../mail';
import {
  displayName,
  linkToken,
  receives,
  record,
  SHARE_RATE_MESSAGE,
  type ShareResult,
  SHARES_PER_HOUR,
  type SharingDeps,
  toShareDtos,
} from './sharing-context';

/**
 * A de-identified share: the study's de-identified copy is shared instead (modules/deidentify makes
 * it first when there is none, and the share follows by `shareCopy` when it is ready).
 */
async function shareDeidentified(
  deps: SharingDeps,
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
    const done = await shareAs(
      deps,
      owner,
      { ...body, studyId: prepared.ready[0]!, deidentified: false },
      meta,
    );
    return { ...done, message: done.message.replace('your study', 'a de-identified copy of your study') };
  }
  await record(deps, owner, meta, 'study.share.deidentified', study.id, { jobId: prepared.queued });
  const who = 'email' in body ? body.email.trim() : 'your provider';
  return {
    message: `A de-identified copy of this study is being made; it will be shared with ${who} when it is ready.`,
    pending: true,
    jobId: prepared.queued,
  };
}

/** Shares one study with one recipient (an email, or a provider of the owner's). */
async function shareAs(
  deps: SharingDeps,
  owner: UserRow,
  body: CreateShareBody,
  meta: RequestMeta,
): Promise<ShareResult> {
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
  if (body.deidentified) return shareDeidentified(deps, owner, study, body, meta);

  let email: string;
  let providerId: string | null = null;
  let linkedUserId: string | null = null;
  if ('providerId' in body) {
    const provider = await deps.providers.findForUser(owner.id, body.providerId);
    if (!provider) throw new AppError('NOT_FOUND', 'Provider not found.');
    email = provider.contactInformation.email;
    providerId = provider.id;
    linkedUserId = provider.onPlatform ? await deps.repo.linkedAccountOf(provider.id) : null;
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

  const share = await deps.repo.insertShare({
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
  await record(deps, owner, meta, 'study.share', study.id, {
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
    link.searchParams.set('shareToken', linkToken(deps, share.id, emailNormalized));
    link.searchParams.set('email', email);
    await deps.mail.send(email, studySharedInvitationEmail({ sharedBy, link: link.toString() }));
  }
  const view = await deps.repo.findView(share.id);
  const [dto] = await toShareDtos(deps, [view!]);
  return { message: `You invited ${email} to view your study`, data: dto! };
}

/** Making shares: at once, or for a de-identified copy once it is made. */
export function createShareCreation(deps: SharingDeps) {
  return {
    /** Shares one study with one recipient (an email, or a provider of the user's). */
    share: (auth: AuthenticatedSession, body: CreateShareBody, meta: RequestMeta) =>
      shareAs(deps, auth.user, body, meta),

    /**
     * The share a de-identified share asked for, once its copy exists (the deidentified-send job):
     * checked again as the owner is now (sharing still on, account still active).
     */
    async shareCopy(ownerId: string, copyStudyId: string, recipient: Record<string, unknown>) {
      const owner = await deps.users.findById(ownerId);
      if (!owner || owner.accountStatus !== 'active')
        throw new AppError('FORBIDDEN', 'The account is not active.');
      const body = createShareBodySchema.parse({ ...recipient, studyId: copyStudyId });
      await shareAs(deps, owner, body, { requestId: `deidentified-share:${copyStudyId}`, ip: '' });
    },
  };
}
