import type { ResetPasswordBody } from '@mi/contracts/auth';
import { normalizeEmail } from '@mi/contracts/rules';
import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { MailService } from '../mail';
import { passwordChangedEmail, passwordResetEmail, verifyEmailEmail } from '../mail';
import type { UserRow, UsersRepository } from '../accounts';
import type { EmailTokensRepository } from './email-tokens.repository';
import type { MfaRepository } from './mfa.repository';
import { hashPassword } from './password';
import type { RequestMeta } from '../../http/request-meta';
import type { SessionsRepository } from './sessions.repository';
import type { Throttle } from '../rate-limit';
import { hashToken } from './tokens';

export const RESET_TOKEN_TTL_MS = 60 * 60_000;
export const EMAIL_VERIFY_TTL_MS = 48 * 3_600_000;
export const FORGOT_PASSWORD_MESSAGE =
  'If an account exists for this email, a password reset link has been sent to it.';
export const RESET_TOKEN_INVALID = 'Token Expired or Invalid, Please try again';
const HOUR_MS = 3_600_000;
const MAX_RESET_MAILS_PER_ACCOUNT = 3;
const MAX_VERIFY_MAILS_PER_ACCOUNT = 5;

interface Deps {
  users: UsersRepository;
  sessions: SessionsRepository;
  tokens: EmailTokensRepository;
  mfa: MfaRepository;
  mail: MailService;
  audit: AuditRecorder;
  throttle: Throttle;
  log: Logger;
  appUrl: string;
  now: () => Date;
}

/** One-time tokens, and the password reset's request and lookup. */
function createRecoveryTools(deps: Deps) {
  const { now } = deps;

  const issueToken = (user: UserRow, purpose: 'password_reset' | 'email_verify', ttlMs: number) =>
    deps.tokens.issue(user.id, purpose, ttlMs, now());

  async function requestReset(email: string, meta: RequestMeta): Promise<void> {
    const emailNormalized = normalizeEmail(email);
    const user = await deps.users.findByEmail(emailNormalized);
    const key = `reset:account:${emailNormalized}`;
    if (!user || (await deps.throttle.count(key, HOUR_MS)) >= MAX_RESET_MAILS_PER_ACCOUNT) {
      await deps.audit({
        actorId: user?.id ?? null,
        action: 'auth.password_reset.requested',
        outcome: user ? 'denied' : 'failure',
        requestId: meta.requestId,
        ip: meta.ip,
        details: { reason: user ? 'rate_limited' : 'unknown_email' },
      });
      return;
    }
    await deps.throttle.hit(key);
    const token = await issueToken(user, 'password_reset', RESET_TOKEN_TTL_MS);
    const link = `${deps.appUrl}/reset-password?${new URLSearchParams({ email: user.email, challenge: token }).toString()}`;
    await deps.mail.send(user.email, passwordResetEmail({ link, minutes: RESET_TOKEN_TTL_MS / 60_000 }));
    await deps.audit({
      actorId: user.id,
      actorRole: user.role,
      action: 'auth.password_reset.requested',
      outcome: 'success',
      targetType: 'user',
      targetId: user.id,
      requestId: meta.requestId,
      ip: meta.ip,
    });
  }

  /** The live reset token for this email, if the challenge is one. */
  async function findResetToken(email: string, challenge: string) {
    const row = await deps.tokens.findLive('password_reset', hashToken(challenge), now());
    if (!row) return undefined;
    const user = await deps.users.findById(row.userId);
    return user && user.emailNormalized === normalizeEmail(email) ? { row, user } : undefined;
  }

  return { now, issueToken, requestReset, findResetToken };
}
type RecoveryTools = ReturnType<typeof createRecoveryTools>;

/** A forgotten password: the emailed reset, checked and used. */
function createPasswordReset(deps: Deps, tools: RecoveryTools) {
  const { now, requestReset, findResetToken } = tools;
  return {
    /**
     * POST /api/auth/forgot-password. The answer is the same, and as fast, whether or not the
     * email has an account: the lookup and the mail happen after the response.
     */
    forgotPassword(email: string, meta: RequestMeta): { message: string } {
      void requestReset(email, meta).catch((err) => deps.log.error({ err }, 'password reset request failed'));
      return { message: FORGOT_PASSWORD_MESSAGE };
    },

    /** POST /api/auth/verifyResetToken: whether the emailed reset link is still valid. */
    async verifyResetToken(email: string, challenge: string): Promise<boolean> {
      return (await findResetToken(email, challenge)) !== undefined;
    },

    /**
     * POST /api/auth/reset-password. The token works once; every session of the user ends and
     * the next sign-in still asks for the second factor.
     */
    async resetPassword(body: ResetPasswordBody, meta: RequestMeta): Promise<{ message: string }> {
      const found = await findResetToken(body.email, body.challenge);
      const at = now();
      const consumed = found
        ? await deps.tokens.consume('password_reset', hashToken(body.challenge), at)
        : undefined;
      if (!found || !consumed) {
        await deps.audit({
          action: 'auth.password_reset.completed',
          outcome: 'failure',
          requestId: meta.requestId,
          ip: meta.ip,
          details: { reason: 'invalid_token' },
        });
        throw new AppError('RESET_TOKEN_INVALID', RESET_TOKEN_INVALID);
      }
      const { user } = found;
      await deps.users.update(user.id, {
        passwordHash: await hashPassword(body.newPassword),
        passwordChangeRequired: false,
        updatedAt: at,
      });
      await deps.tokens.retireAll(user.id, 'password_reset', at);
      await deps.mfa.consumeAllChallenges(user.id, at);
      const revoked = await deps.sessions.revokeAllForUser(user.id, 'password_reset', { at });
      await deps.throttle.clear(`login:account:${user.emailNormalized}`);
      await deps.audit({
        actorId: user.id,
        actorRole: user.role,
        action: 'auth.password_reset.completed',
        outcome: 'success',
        targetType: 'user',
        targetId: user.id,
        requestId: meta.requestId,
        ip: meta.ip,
        details: { sessionsRevoked: revoked },
      });
      await deps.mail.send(user.email, passwordChangedEmail({ appUrl: deps.appUrl }));
      return { message: 'Password reset successful.' };
    },
  };
}

/** Confirming an account's email address: the link sent (again), and used. */
function createEmailVerification(deps: Deps, tools: RecoveryTools) {
  const { now, issueToken } = tools;
  return {
    /** A new single-use link proving the user owns the address (older links stop working). */
    async createEmailVerificationLink(
      user: UserRow,
      meta: RequestMeta,
    ): Promise<{ link: string; hours: number }> {
      await deps.tokens.retireAll(user.id, 'email_verify', now());
      const token = await issueToken(user, 'email_verify', EMAIL_VERIFY_TTL_MS);
      await deps.audit({
        actorId: user.id,
        actorRole: user.role,
        action: 'auth.email_verification.sent',
        outcome: 'success',
        targetType: 'user',
        targetId: user.id,
        requestId: meta.requestId,
        ip: meta.ip,
      });
      return {
        link: `${deps.appUrl}/verify-email?${new URLSearchParams({ token }).toString()}`,
        hours: EMAIL_VERIFY_TTL_MS / HOUR_MS,
      };
    },

    /** Emails a new confirmation link on its own (banner resend, Google accounts without a verified email). */
    async sendEmailVerification(user: UserRow, meta: RequestMeta): Promise<void> {
      const { link, hours } = await this.createEmailVerificationLink(user, meta);
      await deps.mail.send(user.email, verifyEmailEmail({ name: user.name ?? 'there', link, hours }));
    },

    /** The banner's "resend" button: limited to a few mails an hour. */
    async resendEmailVerification(user: UserRow, meta: RequestMeta): Promise<{ message: string }> {
      if (user.emailVerifiedAt) return { message: 'Your email address is already verified.' };
      const key = `verify-email:account:${user.id}`;
      if ((await deps.throttle.count(key, HOUR_MS)) >= MAX_VERIFY_MAILS_PER_ACCOUNT) {
        throw new AppError('RATE_LIMITED', 'Too many verification emails. Please try again later.');
      }
      await deps.throttle.hit(key);
      await this.sendEmailVerification(user, meta);
      return { message: `Verification email sent to ${user.email}.` };
    },

    /** The link's landing page calls this; the token works once. */
    async verifyEmail(token: string, meta: RequestMeta): Promise<{ message: string }> {
      const at = now();
      const row = await deps.tokens.consume('email_verify', hashToken(token), at);
      if (!row) {
        // A link opened again (or after a newer one) whose account is verified: nothing is wrong.
        const spent = await deps.tokens.findAny('email_verify', hashToken(token));
        const owner = spent && (await deps.users.findById(spent.userId));
        if (owner?.emailVerifiedAt) return { message: 'Your email address is already verified.' };
        await deps.audit({
          action: 'auth.email_verification.completed',
          outcome: 'failure',
          requestId: meta.requestId,
          ip: meta.ip,
        });
        throw new AppError('VERIFICATION_LINK_INVALID', 'This verification link is invalid or has expired.');
      }
      const user = await deps.users.findById(row.userId);
      if (user && !user.emailVerifiedAt)
        await deps.users.update(user.id, { emailVerifiedAt: at, updatedAt: at });
      await deps.audit({
        actorId: row.userId,
        actorRole: user?.role ?? null,
        action: 'auth.email_verification.completed',
        outcome: 'success',
        targetType: 'user',
        targetId: row.userId,
        requestId: meta.requestId,
        ip: meta.ip,
      });
      return { message: 'Your email address has been verified.' };
    },
  };
}

/** Forgotten passwords and email ownership: single-use emailed tokens, hashed at rest. */
export function createRecoveryService(deps: Deps) {
  const tools = createRecoveryTools(deps);
  return {
    ...createPasswordReset(deps, tools),
    ...createEmailVerification(deps, tools),
  };
}
export type RecoveryService = ReturnType<typeof createRecoveryService>;
