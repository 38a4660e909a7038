import {
  type CreatedLink,
  type PendingLink,
  type createLinkSchema,
  PASSCODE_ATTEMPTS,
} from '@mi/contracts/links';
import { SHARING_OFF_MESSAGE } from '@mi/contracts/sharing';
import type { z } from 'zod';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { Principal } from '../access';
import type { AuthenticatedSession } from '../auth';
import type { LinkRow } from './links.repository';
import {
  auditLink,
  checkExpiry,
  type LinkPolicy,
  linkPolicySchema,
  type LinksDeps,
  MANIFEST_URL_MAX,
  manifestUrl,
  present,
} from './links-context';
import { random256 } from './links-crypto';

type CreateLink = z.output<typeof createLinkSchema>;

/** Every study must be the owner's own (the one access rule; 404 for any other). */
async function requireOwnStudies(
  deps: LinksDeps,
  user: { id: string; role: Principal['role'] },
  studyIds: string[],
  meta: RequestMeta,
) {
  const principal: Principal = { userId: user.id, role: user.role, via: 'session', studyId: null };
  for (const id of studyIds)
    await deps.access.requireOwner(principal, id, meta, { auditAction: 'link.create' });
}

async function insertLink(
  deps: LinksDeps,
  owner: { id: string; role: Principal['role'] },
  studyIds: string[],
  policy: LinkPolicy,
  meta: RequestMeta,
): Promise<LinkRow> {
  const manifestId = random256();
  if (manifestUrl(deps, manifestId).length > MANIFEST_URL_MAX)
    throw new AppError('INTERNAL', 'PUBLIC_URL is too long for SMART Health Links (see docs/links.md).');
  const link = await deps.repo.insert(
    {
      ownerId: owner.id,
      manifestId,
      sealedKey: deps.seal.encrypt(random256()),
      mode: policy.mode,
      label: policy.label,
      sealedPasscode: policy.sealedPasscode,
      passcodeAttemptsLeft: PASSCODE_ATTEMPTS,
      allowDownload: policy.allowDownload,
      maxOpens: policy.maxOpens,
      expiresAt: new Date(policy.expiresAt),
    },
    studyIds,
  );
  await auditLink(deps, 'link.create', 'success', link, studyIds, meta, owner, { mode: link.mode });
  return link;
}

/** Making links: for the owner's studies at once, or for their de-identified copies once made. */
export function createLinkCreation(deps: LinksDeps) {
  return {
    /**
     * A link for some of the owner's studies; with `deidentified`, for their de-identified copies
     * instead (modules/deidentify), made first when missing: the link then follows by
     * `createForCopies` and the owner is told it is ready.
     */
    async create(
      auth: AuthenticatedSession,
      body: CreateLink,
      meta: RequestMeta,
    ): Promise<CreatedLink | PendingLink> {
      if (body.mode === 'checkin' && body.passcode)
        throw new AppError(
          'VALIDATION_ERROR',
          'A check-in link opens without a passcode; choose a share link for one.',
        );
      checkExpiry(deps, body.mode, new Date(body.expiresAt), !!body.passcode);
      const studyIds = [...new Set(body.studyIds)];
      const owner = await deps.users.findById(auth.user.id);
      await requireOwnStudies(deps, auth.user, studyIds, meta);
      // A link opens nothing while sharing is off (Settings, 'Share Medical Records'): say so now.
      if (!owner?.shareMedicalData) throw new AppError('FORBIDDEN', SHARING_OFF_MESSAGE);
      // Sealed, not hashed: a passcode of a few characters falls to an offline guess of any hash,
      // so the key (from SESSION_SECRET) protects it at rest and the lifetime budget online.
      const sealedPasscode = body.passcode ? deps.seal.encrypt(body.passcode) : null;
      const policy: LinkPolicy = {
        mode: body.mode,
        label: body.label?.trim() || null,
        sealedPasscode,
        allowDownload: body.allowDownload,
        maxOpens: body.maxOpens ?? null,
        expiresAt: body.expiresAt,
      };
      if (!body.deidentified) return present(deps, await insertLink(deps, owner, studyIds, policy, meta));
      const prepared = await deps.deidentified.prepare(owner.id, studyIds, { kind: 'link', policy });
      if ('ready' in prepared)
        return present(deps, await insertLink(deps, owner, prepared.ready, policy, meta));
      await auditLink(deps, 'link.create.deidentified', 'success', null, studyIds, meta, auth.user, {
        jobId: prepared.queued,
      });
      return {
        pending: true,
        jobId: prepared.queued,
        message:
          'De-identified copies are being made. The link will be on your Links page when they are ready; we will tell you.',
      };
    },

    /** The link a de-identified link asked for, once its copies exist (the deidentified-send job). */
    async createForCopies(ownerId: string, copyStudyIds: string[], then: Record<string, unknown>) {
      const owner = await deps.users.findById(ownerId);
      if (!owner || owner.accountStatus !== 'active')
        throw new AppError('FORBIDDEN', 'The account is not active.');
      if (!owner.shareMedicalData) throw new AppError('FORBIDDEN', SHARING_OFF_MESSAGE);
      const policy = linkPolicySchema.parse(then.policy);
      checkExpiry(deps, policy.mode, new Date(policy.expiresAt), policy.sealedPasscode !== null);
      const meta = { requestId: `deidentified-link:${copyStudyIds[0]}`, ip: '' };
      await requireOwnStudies(deps, owner, copyStudyIds, meta);
      const link = await insertLink(deps, owner, copyStudyIds, policy, meta);
      await deps.notify(ownerId, {
        type: 'message',
        title: 'Your de-identified link is ready',
        description: `Your link${link.label ? ` “${link.label}”` : ''} to de-identified copies is ready: show its QR code or copy it from the Links page.`,
        path: '/links',
      });
    },
  };
}
