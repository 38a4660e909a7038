import {
  INVITATION_DAYS,
  INVITATION_INVALID_MESSAGE,
  inviteSentMessage,
  type InvitationCheck,
  type InviteLink,
} from '@mi/contracts/sharing';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { Throttle } from '../rate-limit';
import type { MailService } from '../mail';
import { inviteUserEmail, providerInviteEmail } from '../mail';
import { defaultQuotaBytes, quotaGB, quotaOf, type Quota } from '../accounts';
import type { NotificationsService } from '../notifications';
import type { UserRow, UsersRepository } from '../accounts';
import type { InvitationTokens } from './invitation-token';
import type { InvitationRow, InvitationsRepository } from './invitations.repository';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Invitation emails one user may send per hour (each kind counted apart). */
export const INVITES_PER_HOUR = 20;
const HOUR_MS = 60 * 60 * 1000;
const TOO_MANY_INVITES = `You have sent ${INVITES_PER_HOUR} invitations in the last hour. Please wait a while before sending more.`;

interface Deps {
  repo: InvitationsRepository;
  tokens: InvitationTokens;
  users: Pick<UsersRepository, 'findById'>;
  mail: Pick<MailService, 'send'>;
  audit: AuditRecorder;
  throttle: Pick<Throttle, 'hit' | 'count'>;
  appUrl: string;
  defaultMaxStorageGB: number;
  /** Tells the inviter their invitation was accepted. */
  notifications?: Pick<NotificationsService, 'notify'>;
  now: () => Date;
}

/** What a live upload invitation lets its holder do: upload into the inviter's account. */
export interface SharedUploadGrant {
  inviterId: string;
  invitationId: string;
  /** The inviter's quota now: a shared upload is charged to them. */
  quota: Quota;
}

/** The new account's fields, as registration builds them. */
type NewAccount = Parameters<InvitationsRepository['registerWithReferral']>[2];
type NewProfile = Parameters<InvitationsRepository['registerWithReferral']>[3];

const displayName = (u: Pick<UserRow, 'name' | 'email'>) => u.name?.trim() || u.email;

/** The invite link's address: the upload page, naming the inviter. */
const uploadUrl = (deps: Deps, inviterId: string, token: string) =>
  `${deps.appUrl}/?${new URLSearchParams({ invitedBy: inviterId, mode: 'direct_upload', invite: token }).toString()}`;

const auditEvent = (
  deps: Deps,
  actor: { id: string; role?: string } | null,
  action: string,
  outcome: 'success' | 'denied' | 'failure',
  meta: RequestMeta,
  targetId: string | null,
  details?: Record<string, unknown>,
) =>
  deps.audit({
    actorId: actor?.id ?? null,
    actorRole: actor?.role ?? null,
    action,
    outcome,
    targetType: 'invitation',
    targetId,
    requestId: meta.requestId,
    ip: meta.ip,
    ...(details ? { details } : {}),
  });

/** Invitations made (a link, or an email within the hourly allowance) and found while live. */
function createInvitationTools(deps: Deps) {
  const { repo, tokens, now } = deps;
  const defaultMaxBytes = defaultQuotaBytes(deps.defaultMaxStorageGB);

  async function issueLink(auth: AuthenticatedSession, meta: RequestMeta): Promise<InvitationRow> {
    const at = now();
    const row = await repo.create({
      inviterId: auth.user.id,
      kind: 'direct_upload',
      email: null,
      allowedRoles: ['patient'],
      expiresAt: new Date(at.getTime() + INVITATION_DAYS * DAY_MS),
      createdAt: at,
    });
    await auditEvent(deps, auth.user, 'invitation.issue', 'success', meta, row.id, { kind: 'link' });
    return row;
  }

  const linkDto = (row: InvitationRow): InviteLink => ({
    id: row.id,
    url: uploadUrl(deps, row.inviterId, tokens.sign(row.id)),
    expiresAt: row.expiresAt.toISOString(),
  });

  /** The invitation a token names, when it is live (signed, not revoked, not expired, inviter active). */
  async function live(token: string | undefined) {
    const id = tokens.verify(token);
    const row = id ? await repo.findById(id) : undefined;
    if (!row || row.revokedAt || row.expiresAt.getTime() <= now().getTime()) return null;
    const inviter = await deps.users.findById(row.inviterId);
    if (!inviter || inviter.accountStatus !== 'active') return null;
    return { row, inviter };
  }

  /** Counts an invitation email against the sender's hourly allowance; 429 past it. */
  async function throttleInvites(auth: AuthenticatedSession, kind: string, meta: RequestMeta) {
    const key = `invite:${kind}:${auth.user.id}`;
    if ((await deps.throttle.count(key, HOUR_MS)) >= INVITES_PER_HOUR) {
      await auditEvent(deps, auth.user, `invitation.${kind}`, 'denied', meta, null, {
        reason: 'rate_limited',
      });
      throw new AppError('RATE_LIMITED', TOO_MANY_INVITES);
    }
    await deps.throttle.hit(key);
  }

  async function emailInvitation(
    auth: AuthenticatedSession,
    kind: 'direct_upload' | 'provider',
    email: string,
    meta: RequestMeta,
  ): Promise<InvitationRow> {
    await throttleInvites(auth, kind === 'provider' ? 'provider' : 'email', meta);
    const at = now();
    const row = await repo.create({
      inviterId: auth.user.id,
      kind,
      email: email.trim(),
      allowedRoles: kind === 'provider' ? ['professional'] : ['patient'],
      expiresAt: new Date(at.getTime() + INVITATION_DAYS * DAY_MS),
      createdAt: at,
    });
    const token = tokens.sign(row.id);
    const inviterName = displayName(auth.user);
    const content =
      kind === 'provider'
        ? providerInviteEmail({
            inviterName,
            link: `${deps.appUrl}/register/medical?${new URLSearchParams({ referral: token, email: row.email! }).toString()}`,
            days: INVITATION_DAYS,
          })
        : inviteUserEmail({ inviterName, link: uploadUrl(deps, auth.user.id, token), days: INVITATION_DAYS });
    await deps.mail.send(row.email!, content);
    // The address is the recipient's data; the audit keeps its domain only.
    await auditEvent(deps, auth.user, 'invitation.issue', 'success', meta, row.id, {
      kind,
      emailDomain: normalizeEmail(email).split('@')[1] ?? null,
    });
    return row;
  }

  return { repo, tokens, now, defaultMaxBytes, issueLink, linkDto, live, throttleInvites, emailInvitation };
}
type InvitationTools = ReturnType<typeof createInvitationTools>;

/** The inviter's side: their invite link, and invitations sent by email. */
function createInvitationIssuing(deps: Deps, tools: InvitationTools) {
  const { repo, now, issueLink, linkDto, emailInvitation } = tools;
  return {
    /** GET /api/invitations/link: the caller's live invite link, made on first ask. */
    async currentLink(auth: AuthenticatedSession, meta: RequestMeta): Promise<InviteLink> {
      const row = (await repo.liveLinkOf(auth.user.id, now())) ?? (await issueLink(auth, meta));
      return linkDto(row);
    },

    /** POST /api/invitations/link: revokes the caller's link (whoever holds it can no longer use it) and issues a new one. */
    async renewLink(auth: AuthenticatedSession, meta: RequestMeta): Promise<InviteLink> {
      const revoked = await repo.revokeLinks(auth.user.id, now());
      for (const id of revoked) await auditEvent(deps, auth.user, 'invitation.revoke', 'success', meta, id);
      return linkDto(await issueLink(auth, meta));
    },

    /** POST /api/invite: emails an invitation to upload studies into the caller's account. */
    async inviteUser(auth: AuthenticatedSession, email: string, meta: RequestMeta) {
      await emailInvitation(auth, 'direct_upload', email, meta);
      return { message: inviteSentMessage(email.trim()) };
    },

    /** POST /api/providers/invite: emails a referral to apply for a professional account. */
    async inviteProvider(auth: AuthenticatedSession, to: string, meta: RequestMeta) {
      await emailInvitation(auth, 'provider', to, meta);
      return { message: `Invitation sent to ${to.trim()}` };
    },
  };
}

/** The invited side: checking an invitation, and uploading to the inviter through it. */
function createInvitationUse(deps: Deps, tools: InvitationTools) {
  const { repo, defaultMaxBytes, live } = tools;
  return {
    /** GET /api/invitations/check: what a token lets the signed-in caller do, for /uploadOnly. */
    async check(auth: AuthenticatedSession, token: string, meta: RequestMeta): Promise<InvitationCheck> {
      const found = await live(token);
      if (!found) {
        await auditEvent(deps, auth.user, 'invitation.check', 'denied', meta, null);
        return {
          valid: false,
          kind: null,
          inviterName: null,
          message: INVITATION_INVALID_MESSAGE,
          room: null,
        };
      }
      const { row, inviter } = found;
      await auditEvent(deps, auth.user, 'invitation.check', 'success', meta, row.id);
      const quota = quotaOf(inviter, defaultMaxBytes);
      return {
        valid: true,
        kind: row.kind,
        inviterName: displayName(inviter),
        message: null,
        room:
          row.kind === 'direct_upload'
            ? { remainingBytes: quota.remainingBytes, maxStorageGB: quotaGB(quota.maxBytes) }
            : null,
      };
    },

    /**
     * The rule for uploading on behalf of another user: the token must name a live upload invitation
     * issued by `targetUserId`. Throws a 400 with a clear message otherwise (audited); nothing is
     * stored by the caller then.
     */
    async requireSharedUpload(
      uploaderId: string,
      token: string | undefined,
      targetUserId: string | undefined,
      meta: RequestMeta,
    ): Promise<SharedUploadGrant> {
      const found = await live(token);
      if (!found || found.row.kind !== 'direct_upload' || found.row.inviterId !== targetUserId) {
        await auditEvent(deps, { id: uploaderId }, 'upload.shared', 'denied', meta, found?.row.id ?? null, {
          reason: found ? 'wrong_inviter' : 'invitation_not_live',
        });
        throw new AppError('BAD_REQUEST', INVITATION_INVALID_MESSAGE);
      }
      return {
        inviterId: found.inviter.id,
        invitationId: found.row.id,
        quota: quotaOf(found.inviter, defaultMaxBytes),
      };
    },

    /** A shared upload was handed to processing through this invitation (counted and audited). */
    async recordSharedUpload(
      uploaderId: string,
      grant: SharedUploadGrant,
      uploadId: string,
      meta: RequestMeta,
    ) {
      await repo.countUpload(grant.invitationId);
      await auditEvent(deps, { id: uploaderId }, 'invitation.use', 'success', meta, grant.invitationId, {
        use: 'shared_upload',
        uploadId,
        inviterId: grant.inviterId,
      });
    },
  };
}

/** Registering with an invitation (a provider's referral). */
function createReferralRegistration(deps: Deps, tools: InvitationTools) {
  const { repo, now, live } = tools;
  return {
    /**
     * Registration through an emailed referral: the token must be live and unused, the email the
     * invited one (which then counts as verified: the link proved it arrived) and the role one the
     * invitation allows. Creates the account and uses the referral in one transaction. Undefined
     * when the email already has an account (the caller answers as for any taken email).
     */
    async registerWithReferral(
      token: string,
      account: NewAccount,
      profile: NewProfile,
      meta: RequestMeta,
    ): Promise<UserRow | undefined> {
      const at = now();
      const refuse = async (reason: string, id: string | null): Promise<never> => {
        await auditEvent(deps, null, 'invitation.use', 'denied', meta, id, { use: 'referral', reason });
        throw new AppError('BAD_REQUEST', INVITATION_INVALID_MESSAGE);
      };
      const found = await live(token);
      if (!found || found.row.usedAt) return refuse('not_live', found?.row.id ?? null);
      const { row } = found;
      if (!row.email || normalizeEmail(row.email) !== account.emailNormalized)
        return refuse('email_mismatch', row.id);
      if (!row.allowedRoles.includes(account.role ?? 'patient')) return refuse('role_not_allowed', row.id);
      const result = await repo.registerWithReferral(
        row.id,
        at,
        { ...account, emailVerifiedAt: at },
        profile,
      );
      if ('refused' in result) {
        if (result.refused === 'email_taken') return undefined;
        return refuse(result.refused, row.id);
      }
      await auditEvent(
        deps,
        { id: result.user.id, role: result.user.role },
        'invitation.use',
        'success',
        meta,
        row.id,
        {
          use: 'referral',
          inviterId: row.inviterId,
        },
      );
      // No name of the new user: this also travels by email.
      await deps.notifications?.notify(row.inviterId, {
        type: 'message',
        title: 'Invitation accepted',
        description: 'Someone you invited has created their account.',
        path: '/share',
      });
      return result.user;
    },
  };
}

/**
 * Invitations: the Share & Embed page's invite link (shown again, revoked and replaced), invitations
 * by email (Invite User, Invite New Provider), the check of a token by the page it lands on, the rule
 * for uploads on behalf of an inviter, and registration through a provider referral.
 */
export function createInvitationsService(deps: Deps) {
  const tools = createInvitationTools(deps);
  return {
    ...createInvitationIssuing(deps, tools),
    ...createInvitationUse(deps, tools),
    ...createReferralRegistration(deps, tools),
  };
}
export type InvitationsService = ReturnType<typeof createInvitationsService>;
