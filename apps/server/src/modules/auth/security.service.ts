import type { ChangePasswordBody, ReauthenticateBody } from '@mi/contracts/auth';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { MailService } from '../mail';
import { emailChangeConfirmEmail, emailChangedEmail, passwordChangedEmail } from '../mail';
import type { UsersRepository } from '../accounts';
import type { AuthenticatedSession } from './session-issuer';
import type { EmailTokensRepository } from './email-tokens.repository';
import { FRESH_PROOF_WINDOW_MS, type FreshProofRule } from './fresh-proof';
import type { GoogleVerifier } from './google-verifier';
import type { MfaRepository } from './mfa.repository';
import type { MfaService } from './mfa.service';
import { hashPassword, verifyPassword } from './password';
import type { RequestMeta } from '../../http/request-meta';
import type { SessionsRepository } from './sessions.repository';
import type { Throttle } from '../rate-limit';
import { hashToken } from './tokens';

const WINDOW_MS = 15 * 60_000;
/** Wrong passwords a signed-in account may try in the window before it must wait. */
const MAX_PASSWORD_FAILURES = 10;
const WRONG_PASSWORD = 'Incorrect password. Please try again.';
const TOO_MANY = 'Too many attempts. Please wait 15 minutes and try again.';
const GOOGLE_FAILED = 'Google did not confirm it is you. Please try again.';
export const EMAIL_CHANGE_TTL_MS = 24 * 3_600_000;
const MAX_EMAIL_CHANGES_PER_HOUR = 5;

type SignedIn = Pick<AuthenticatedSession, 'user' | 'session'>;

interface Deps {
  users: UsersRepository;
  sessions: SessionsRepository;
  tokens: EmailTokensRepository;
  mfaRepo: MfaRepository;
  mfa: Pick<MfaService, 'proveWithCode' | 'sendProofCode'>;
  mail: MailService;
  audit: AuditRecorder;
  throttle: Throttle;
  requireFreshProof: FreshProofRule;
  /** Absent when GOOGLE_CLIENT_ID is not configured. */
  verifyGoogleToken?: GoogleVerifier;
  appUrl: string;
  now: () => Date;
}

/** Audit records, and the proofs a security change asks for: the password, or a Google sign-in. */
function createSecurityTools(deps: Deps) {
  const { now } = deps;

  const audit = (
    auth: SignedIn,
    action: string,
    outcome: 'success' | 'failure' | 'denied',
    meta: RequestMeta,
    details?: Record<string, unknown>,
  ) =>
    deps.audit({
      actorId: auth.user.id,
      actorRole: auth.user.role,
      action,
      outcome,
      targetType: 'user',
      targetId: auth.user.id,
      requestId: meta.requestId,
      ip: meta.ip,
      details,
    });

  /** Checks the account's current password, counting wrong ones (10 in 15 minutes, then a wait). */
  async function checkPassword(auth: SignedIn, password: string, action: string, meta: RequestMeta) {
    const key = `reauth:password:${auth.user.id}`;
    if ((await deps.throttle.count(key, WINDOW_MS)) >= MAX_PASSWORD_FAILURES) {
      await audit(auth, action, 'denied', meta, { reason: 'throttled' });
      throw new AppError('RATE_LIMITED', TOO_MANY);
    }
    const user = (await deps.users.findById(auth.user.id)) ?? auth.user;
    if (!user.passwordHash) {
      await audit(auth, action, 'failure', meta, { reason: 'no_password' });
      throw new AppError(
        'BAD_REQUEST',
        'Your account signs in with Google and has no password. Confirm with Google instead.',
      );
    }
    if (!(await verifyPassword(user.passwordHash, password))) {
      await deps.throttle.hit(key);
      await audit(auth, action, 'failure', meta, { reason: 'wrong_password' });
      throw new AppError('INVALID_CREDENTIALS', WRONG_PASSWORD);
    }
    await deps.throttle.clear(key);
  }

  /** A Google ID token of this account's Google identity, issued in the last few minutes. */
  async function checkGoogle(auth: SignedIn, credential: string, meta: RequestMeta) {
    const fail = async (reason: string): Promise<never> => {
      await audit(auth, 'auth.reauthenticate', 'failure', meta, { method: 'google', reason });
      throw new AppError('GOOGLE_AUTH_FAILED', GOOGLE_FAILED);
    };
    if (!deps.verifyGoogleToken || !auth.user.googleSub) return fail('not_linked');
    let identity;
    try {
      identity = await deps.verifyGoogleToken(credential);
    } catch {
      return fail('invalid_token');
    }
    if (identity.sub !== auth.user.googleSub) return fail('other_account');
    if (now().getTime() - identity.issuedAt.getTime() > FRESH_PROOF_WINDOW_MS) return fail('stale_token');
  }

  return { now, audit, checkPassword, checkGoogle };
}
type SecurityTools = ReturnType<typeof createSecurityTools>;

/** Proving it is still the account holder: a code, the password, or Google. */
function createSecurityProofs(deps: Deps, tools: SecurityTools) {
  const { now, audit, checkPassword, checkGoogle } = tools;
  return {
    /** POST /api/auth/reauthenticate/code: emails a code to accounts whose second factor is email. */
    sendCode: (auth: SignedIn, meta: RequestMeta) => deps.mfa.sendProofCode(auth, meta),

    /**
     * POST /api/auth/reauthenticate: the current password, a second-factor code or a fresh Google
     * sign-in of this account; the session then may change security settings for a few minutes.
     */
    async reauthenticate(auth: SignedIn, body: ReauthenticateBody, meta: RequestMeta) {
      let method: string;
      if ('password' in body) {
        await checkPassword(auth, body.password, 'auth.reauthenticate', meta);
        method = 'password';
      } else if ('code' in body) {
        method = await deps.mfa.proveWithCode(auth, body.code, meta);
      } else {
        await checkGoogle(auth, body.googleCredential, meta);
        method = 'google';
      }
      const at = now();
      await deps.sessions.markReauthenticated(auth.session.id, at);
      await audit(auth, 'auth.reauthenticate', 'success', meta, { method });
      return {
        message: 'Thank you. You can change your security settings now.',
        validUntil: new Date(at.getTime() + FRESH_PROOF_WINDOW_MS).toISOString(),
      };
    },
  };
}

/** Changing the password. */
function createPasswordChange(deps: Deps, tools: SecurityTools) {
  const { now, audit, checkPassword } = tools;
  return {
    /**
     * POST /api/auth/password. The current password proves it is you; without one (Google-only
     * accounts setting a first password) a recent proof is needed. The other sessions end, pending
     * sign-ins and reset links stop working, and the owner is emailed.
     */
    async changePassword(auth: SignedIn, body: ChangePasswordBody, meta: RequestMeta) {
      if (body.currentPassword !== undefined)
        await checkPassword(auth, body.currentPassword, 'auth.password_change', meta);
      else await deps.requireFreshProof(auth, 'auth.password_change', meta);
      const at = now();
      const { user } = auth;
      if (user.passwordChangeRequired && body.newPassword === body.currentPassword)
        throw new AppError('VALIDATION_ERROR', 'Choose a password other than the one-time password.');
      await deps.users.update(user.id, {
        passwordHash: await hashPassword(body.newPassword),
        passwordChangeRequired: false,
        updatedAt: at,
      });
      await deps.tokens.retireAll(user.id, 'password_reset', at);
      await deps.mfaRepo.consumeAllChallenges(user.id, at);
      const revoked = await deps.sessions.revokeAllForUser(user.id, 'password_changed', {
        exceptId: auth.session.id,
        at,
      });
      await audit(auth, 'auth.password_change', 'success', meta, {
        sessionsRevoked: revoked,
        firstPassword: user.passwordHash === null,
      });
      await deps.mail.send(user.email, passwordChangedEmail({ appUrl: deps.appUrl, how: 'settings' }));
      return {
        message:
          revoked === 0
            ? 'Your password was changed.'
            : `Your password was changed and ${revoked === 1 ? '1 other session was' : `${revoked} other sessions were`} signed out.`,
      };
    },
  };
}

/** Changing the email address: asked for, then confirmed from the new address. */
function createEmailChange(deps: Deps, tools: SecurityTools) {
  const { now, audit } = tools;
  return {
    /**
     * POST /api/auth/email: needs a recent proof. A single-use link goes to the new address; the
     * account moves when it is opened (confirmEmailChange). The answer is the same whether or not the
     * address is free, so it does not tell which addresses have accounts.
     */
    async requestEmailChange(auth: SignedIn, newEmail: string, meta: RequestMeta) {
      await deps.requireFreshProof(auth, 'auth.email_change.requested', meta);
      const email = newEmail.trim();
      const normalized = normalizeEmail(email);
      const { user } = auth;
      if (normalized === user.emailNormalized)
        throw new AppError('VALIDATION_ERROR', 'This is already your email address.');
      const key = `email-change:account:${user.id}`;
      if ((await deps.throttle.count(key, 3_600_000)) >= MAX_EMAIL_CHANGES_PER_HOUR)
        throw new AppError('RATE_LIMITED', 'Too many email changes. Please try again later.');
      await deps.throttle.hit(key);
      const at = now();
      const taken = await deps.users.findByEmail(normalized);
      const message = `We sent a confirmation link to ${email}. Your address changes when you open it.`;
      if (taken) {
        await audit(auth, 'auth.email_change.requested', 'failure', meta, { reason: 'email_taken' });
        return { message };
      }
      await deps.tokens.retireAll(user.id, 'email_change', at);
      const token = await deps.tokens.issue(user.id, 'email_change', EMAIL_CHANGE_TTL_MS, at, email);
      const link = `${deps.appUrl}/verify-email?${new URLSearchParams({ token }).toString()}`;
      await deps.mail.send(
        email,
        emailChangeConfirmEmail({
          name: user.name ?? 'there',
          newEmail: email,
          link,
          hours: EMAIL_CHANGE_TTL_MS / 3_600_000,
        }),
      );
      await audit(auth, 'auth.email_change.requested', 'success', meta);
      return { message };
    },

    /**
     * The new address's link (the /verify-email page): the account moves to it, confirmed, and the
     * old address is told. Null when the token is no email change (the caller tries the others).
     */
    async confirmEmailChange(token: string, meta: RequestMeta): Promise<{ message: string } | null> {
      const at = now();
      const row = await deps.tokens.consume('email_change', hashToken(token), at);
      if (!row) {
        // The link opened again once the address has moved: say so rather than "invalid".
        const spent = await deps.tokens.findAny('email_change', hashToken(token));
        const owner = spent?.usedAt && spent.newEmail ? await deps.users.findById(spent.userId) : undefined;
        if (owner && spent?.newEmail && owner.emailNormalized === normalizeEmail(spent.newEmail))
          return { message: `Your email address is now ${spent.newEmail}.` };
        return null;
      }
      const user = await deps.users.findById(row.userId);
      const newEmail = row.newEmail;
      const fail = async (reason: string): Promise<never> => {
        await deps.audit({
          actorId: row.userId,
          actorRole: user?.role ?? null,
          action: 'auth.email_change.completed',
          outcome: 'failure',
          targetType: 'user',
          targetId: row.userId,
          requestId: meta.requestId,
          ip: meta.ip,
          details: { reason },
        });
        throw new AppError(
          'VERIFICATION_LINK_INVALID',
          reason === 'email_taken'
            ? 'This email address is already used by another account.'
            : 'This link is invalid or has expired.',
        );
      };
      if (!user || !newEmail) return fail('no_account');
      if (await deps.users.findByEmail(normalizeEmail(newEmail))) return fail('email_taken');
      const updated = await deps.users.changeEmail(user.id, newEmail, normalizeEmail(newEmail), at);
      if (!updated) return fail('email_taken');
      // Links and codes sent to the old address stop working.
      await deps.tokens.retireAll(user.id, 'password_reset', at);
      await deps.tokens.retireAll(user.id, 'email_verify', at);
      await deps.mfaRepo.consumeAllChallenges(user.id, at);
      await deps.audit({
        actorId: user.id,
        actorRole: user.role,
        action: 'auth.email_change.completed',
        outcome: 'success',
        targetType: 'user',
        targetId: user.id,
        requestId: meta.requestId,
        ip: meta.ip,
      });
      await deps.mail.send(user.email, emailChangedEmail({ appUrl: deps.appUrl, newEmail }));
      return { message: `Your email address is now ${newEmail}.` };
    },
  };
}

/**
 * Proofs of identity for security settings, and the settings that are this module's own: the
 * password and the email address. The rule itself is fresh-proof.ts; the two-factor settings
 * (users.service.ts, mfa.service.ts) and signing out other devices (auth.service.ts) pass it too.
 */
export function createSecurityService(deps: Deps) {
  const tools = createSecurityTools(deps);
  return {
    ...createSecurityProofs(deps, tools),
    ...createPasswordChange(deps, tools),
    ...createEmailChange(deps, tools),
  };
}
export type SecurityService = ReturnType<typeof createSecurityService>;
