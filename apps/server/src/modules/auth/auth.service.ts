import type { LoginBody, RegisterBody } from '@mi/contracts/auth';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { CaptchaVerifier } from '../../ports/captcha/captcha';
import type { AuditRecorder } from '../audit';
import type { MailService } from '../mail';
import { duplicateRegistrationEmail, welcomeEmail } from '../mail';
import type { NewUserRow, UserRow, UsersRepository } from '../accounts';
import type { GoogleVerifier } from './google-verifier';
import type { MfaService, PendingSignIn } from './mfa.service';
import { burnPasswordCheck, hashPassword, verifyPassword } from './password';
import type { RecoveryService } from './recovery.service';
import type { AuthenticatedSession, IssuedSession, IssueSession } from './session-issuer';
import type { RequestMeta } from '../../http/request-meta';
import type { SessionRow, SessionsRepository } from './sessions.repository';
import type { Throttle } from '../rate-limit';
import { LOGIN_WINDOW_MS, type SignInProtection } from './sign-in-protection';
import { hashToken, newToken } from './tokens';
import { describeUserAgent } from './user-agent';
import type { FreshProofRule } from './fresh-proof';

export type { AuthenticatedSession, IssuedSession } from './session-issuer';

/** What a correct first factor leads to: a session, or a pending sign-in waiting for the second factor. */
export type SignInResult =
  { kind: 'session'; issued: IssuedSession } | { kind: 'mfa'; user: UserRow; pending: PendingSignIn };

export const INVALID_CREDENTIALS = 'Invalid email or password. Please try again.';
export const ACCOUNT_DISABLED = 'This account has been disabled. Please contact support.';
/** The refusal names the captcha in use: reCAPTCHA's is the spec's text (docs/spec-deviations.md). */
export const CAPTCHA_MESSAGE = {
  recaptcha: 'reCAPTCHA verification failed. Please try again.',
  altcha: 'Captcha verification failed. Please try again.',
} as const;
const GENERIC_REGISTRATION_FAILURE = 'Registration failed. Please try again.';
const GOOGLE_FAILURE = 'Google sign-in failed. Please try again.';
const TOO_MANY_LOGINS = 'Too many sign-in attempts. Please wait 15 minutes and try again.';
// Session activity is written at most once a minute (or a quarter of the idle timeout if that
// is shorter), so every request is not a write.
const TOUCH_EVERY_MS = 60_000;
/** A refresh token presented again within this of its exchange is taken for two tabs racing. */
const REFRESH_REUSE_GRACE_MS = 10_000;
/** Failed sign-ins allowed per IP in the window (per account: see sign-in-protection.ts). */
const MAX_LOGIN_FAILURES_PER_IP = 100;

interface Deps {
  users: UsersRepository;
  sessions: SessionsRepository;
  captcha: CaptchaVerifier;
  mail: MailService;
  audit: AuditRecorder;
  throttle: Throttle;
  signInProtection: SignInProtection;
  mfa: MfaService;
  recovery: RecoveryService;
  issueSession: IssueSession;
  /** Absent when GOOGLE_CLIENT_ID is not configured. */
  verifyGoogleToken?: GoogleVerifier;
  appUrl: string;
  sessionIdleMs: number;
  /** Registration through an emailed invitation (`referral`). */
  referrals?: ReferralRegistration;
  /** Signing out other devices needs a recent proof of identity (fresh-proof.ts). */
  requireFreshProof: FreshProofRule;
  now: () => Date;
}

/**
 * Registration through an emailed invitation's token: modules/invitations provides it (its service's
 * `registerWithReferral`), and auth names only what it calls, so neither module imports the other.
 */
export interface ReferralRegistration {
  registerWithReferral(
    token: string,
    account: NewUserRow,
    profile: Parameters<UsersRepository['insertProfessionalIfEmailFree']>[1] | undefined,
    meta: RequestMeta,
  ): Promise<UserRow | undefined>;
}

/** Registration, sign-in (password and Google) and server-side sessions. */
export function createAuthService(deps: Deps) {
  const { now } = deps;
  const touchEveryMs = Math.min(TOUCH_EVERY_MS, deps.sessionIdleMs / 4);

  async function requireCaptcha(
    token: string | undefined,
    meta: RequestMeta,
    action: string,
    hardness?: number,
  ) {
    if (await deps.captcha.verify(token, meta.ip, { hardness })) return;
    await deps.audit({
      action,
      outcome: 'denied',
      requestId: meta.requestId,
      ip: meta.ip,
      details: { reason: 'captcha' },
    });
    throw new AppError('CAPTCHA_FAILED', CAPTCHA_MESSAGE[deps.captcha.provider]);
  }

  /** Every first factor ends here: the second factor when enabled, otherwise a session. */
  async function completeFirstFactor(
    user: UserRow,
    meta: RequestMeta,
    method: string,
  ): Promise<SignInResult> {
    // An account an admin disabled signs in no more (its sessions ended when it was disabled).
    if (user.accountStatus === 'disabled') {
      await deps.audit({
        actorId: user.id,
        actorRole: user.role,
        action: 'auth.login',
        outcome: 'denied',
        requestId: meta.requestId,
        ip: meta.ip,
        details: { method, reason: 'account_disabled' },
      });
      throw new AppError('ACCOUNT_DISABLED', ACCOUNT_DISABLED);
    }
    if (user.mfaEnabled) return { kind: 'mfa', user, pending: await deps.mfa.begin(user, meta, method) };
    return { kind: 'session', issued: await deps.issueSession(user, meta, method) };
  }

  function expiryReason(session: SessionRow, at: Date): string | null {
    if (session.expiresAt.getTime() <= at.getTime()) return 'expired';
    if (session.lastSeenAt.getTime() + deps.sessionIdleMs <= at.getTime()) return 'idle';
    return null;
  }

  return {
    /**
     * Creates the account. A patient is signed in; a professional is stored with the licence and
     * waits for an admin. A taken email (any letter case) creates nothing, gets the same generic
     * failure as any other refusal, and its owner is emailed instead.
     */
    async register(body: RegisterBody, meta: RequestMeta): Promise<IssuedSession | { pending: UserRow }> {
      await requireCaptcha(body.captcha, meta, 'auth.register');
      const emailNormalized = normalizeEmail(body.email);
      const passwordHash = await hashPassword(body.password);
      const at = now();
      const values = {
        email: body.email.trim(),
        emailNormalized,
        passwordHash,
        name: body.name.trim(),
        role: body.role,
        // Professionals wait for an admin to verify their licence.
        accountStatus: body.role === 'professional' ? ('pending' as const) : ('active' as const),
        mobilePhone: body.mobilePhone || null,
        dateOfBirth: body.dateOfBirth ?? null,
        termsAcceptedAt: at,
        createdAt: at,
        updatedAt: at,
      };
      const profile =
        body.role === 'professional' && body.license && body.specialty && body.hospital
          ? {
              licenseNumber: body.license.number,
              licenseState: body.license.state,
              licenseExpiryDate: body.license.expiryDate,
              specialty: body.specialty,
              hospital: body.hospital,
              position: body.position || null,
              createdAt: at,
            }
          : undefined;
      // An emailed invitation's link completes the registration: single use, for the invited email
      // (which it proves) and the roles it allows; professionals still wait for an admin.
      const user =
        body.referral && deps.referrals
          ? await deps.referrals.registerWithReferral(body.referral, values, profile, meta)
          : profile
            ? await deps.users.insertProfessionalIfEmailFree(values, profile)
            : await deps.users.insertIfEmailFree(values);
      if (!user) {
        await deps.mail.send(emailNormalized, duplicateRegistrationEmail({ appUrl: deps.appUrl }));
        await deps.audit({
          action: 'auth.register',
          outcome: 'failure',
          targetType: 'email',
          requestId: meta.requestId,
          ip: meta.ip,
          details: { reason: 'duplicate_email' },
        });
        throw new AppError('REGISTRATION_FAILED', GENERIC_REGISTRATION_FAILURE);
      }
      await deps.audit({
        actorId: user.id,
        actorRole: user.role,
        action: 'auth.register',
        outcome: 'success',
        targetType: 'user',
        targetId: user.id,
        requestId: meta.requestId,
        ip: meta.ip,
        details: { role: user.role, accountStatus: user.accountStatus, termsAcceptedAt: at.toISOString() },
      });
      const verification = user.emailVerifiedAt
        ? undefined
        : await deps.recovery.createEmailVerificationLink(user, meta);
      await deps.mail.send(
        user.email,
        welcomeEmail({
          name: user.name ?? 'there',
          appUrl: deps.appUrl,
          verifyLink: verification?.link,
          verifyHours: verification?.hours,
          pending: user.accountStatus === 'pending',
        }),
      );
      if (user.accountStatus !== 'active') return { pending: user };
      return deps.issueSession(user, meta, 'registration');
    },

    /**
     * Password sign-in. Unknown email and wrong password look and take the same; failures are
     * throttled per account (by normalized email, existing or not; a known device of the owner
     * counts its own, see sign-in-protection.ts) and per IP.
     */
    async login(body: LoginBody, meta: RequestMeta, deviceCookie?: string): Promise<SignInResult> {
      const emailNormalized = normalizeEmail(body.email);
      await requireCaptcha(
        body.captcha,
        meta,
        'auth.login',
        await deps.signInProtection.captchaHardness(emailNormalized),
      );
      const ipKey = `login:ip:${meta.ip}`;
      const user = await deps.users.findByEmail(emailNormalized);
      const [judged, byIp] = await Promise.all([
        deps.signInProtection.judge(emailNormalized, user, deviceCookie),
        deps.throttle.count(ipKey, LOGIN_WINDOW_MS),
      ]);
      if (judged.locked || byIp >= MAX_LOGIN_FAILURES_PER_IP) {
        await deps.audit({
          action: 'auth.login',
          outcome: 'denied',
          requestId: meta.requestId,
          ip: meta.ip,
          details: { reason: 'throttled' },
        });
        throw new AppError('RATE_LIMITED', TOO_MANY_LOGINS);
      }
      const ok = user?.passwordHash
        ? await verifyPassword(user.passwordHash, body.password)
        : (await burnPasswordCheck(body.password), false);
      if (!user || !ok) {
        await deps.throttle.hit(ipKey);
        await deps.signInProtection.failed(judged.counter, user, meta);
        await deps.audit({
          actorId: user?.id ?? null,
          action: 'auth.login',
          outcome: 'failure',
          requestId: meta.requestId,
          ip: meta.ip,
          details: { reason: 'invalid_credentials' },
        });
        throw new AppError('INVALID_CREDENTIALS', INVALID_CREDENTIALS);
      }
      await deps.signInProtection.succeeded(judged.counter);
      return completeFirstFactor(user, meta, 'password');
    },

    /**
     * Google sign-in. Accounts are keyed by Google's `sub`. An existing password account with the
     * same email is linked only when Google says the email is verified; otherwise nothing changes.
     */
    async googleSignIn(credential: string, meta: RequestMeta): Promise<SignInResult> {
      if (!deps.verifyGoogleToken) throw new AppError('BAD_REQUEST', 'Google sign-in is not configured');
      const fail = async (reason: string, user?: UserRow): Promise<never> => {
        await deps.audit({
          actorId: user?.id ?? null,
          actorRole: user?.role ?? null,
          action: reason.startsWith('link_') ? 'auth.google.link' : 'auth.login',
          outcome: reason.startsWith('link_') ? 'denied' : 'failure',
          requestId: meta.requestId,
          ip: meta.ip,
          details: { method: 'google', reason },
        });
        throw new AppError('GOOGLE_AUTH_FAILED', GOOGLE_FAILURE);
      };
      let identity;
      try {
        identity = await deps.verifyGoogleToken(credential);
      } catch {
        return fail('invalid_token');
      }
      const bySub = await deps.users.findByGoogleSub(identity.sub);
      if (bySub) return completeFirstFactor(bySub, meta, 'google');
      if (!identity.email) return fail('no_email');
      const emailNormalized = normalizeEmail(identity.email);
      const existing = await deps.users.findByEmail(emailNormalized);
      const at = now();
      if (existing) {
        // Never a silent takeover: Google must vouch for the address, and one Google account per user.
        if (!identity.emailVerified) return fail('link_email_unverified', existing);
        if (existing.googleSub) return fail('link_other_google_account', existing);
        const linked = await deps.users.linkGoogle(existing.id, identity.sub, {
          emailVerifiedAt: existing.emailVerifiedAt ?? at,
          updatedAt: at,
        });
        if (!linked) return fail('link_race', existing);
        await deps.audit({
          actorId: linked.id,
          actorRole: linked.role,
          action: 'auth.google.link',
          outcome: 'success',
          targetType: 'user',
          targetId: linked.id,
          requestId: meta.requestId,
          ip: meta.ip,
        });
        return completeFirstFactor(linked, meta, 'google');
      }
      const created = await deps.users.insertIfEmailFree({
        email: identity.email.trim(),
        emailNormalized,
        passwordHash: null,
        name: identity.name?.trim().slice(0, 200) || null,
        role: 'patient',
        accountStatus: 'active',
        googleSub: identity.sub,
        emailVerifiedAt: identity.emailVerified ? at : null,
        createdAt: at,
        updatedAt: at,
      });
      if (!created) return fail('create_race');
      await deps.audit({
        actorId: created.id,
        actorRole: created.role,
        action: 'auth.register',
        outcome: 'success',
        targetType: 'user',
        targetId: created.id,
        requestId: meta.requestId,
        ip: meta.ip,
        details: { role: 'patient', method: 'google' },
      });
      if (!created.emailVerifiedAt) await deps.recovery.sendEmailVerification(created, meta);
      return completeFirstFactor(created, meta, 'google');
    },

    /** Resolves an auth token to its live session, ending sessions that are idle or too old. */
    async authenticate(authToken: string, meta: RequestMeta): Promise<AuthenticatedSession | null> {
      const hash = hashToken(authToken);
      let found = await deps.sessions.findActiveByAuthHash(hash);
      if (!found) return null;
      const at = now();
      let reason = expiryReason(found.session, at);
      if (reason) {
        // A cached row may predate activity another process has recorded: decide on the stored one.
        found = await deps.sessions.findActiveByAuthHash(hash, { fresh: true });
        if (!found) return null;
        reason = expiryReason(found.session, at);
      }
      if (reason) {
        await deps.sessions.revoke(found.session.id, reason, at);
        await deps.audit({
          actorId: found.user.id,
          actorRole: found.user.role,
          action: 'auth.session_expired',
          outcome: 'success',
          targetType: 'session',
          targetId: found.session.id,
          requestId: meta.requestId,
          ip: meta.ip,
          details: { reason },
        });
        return null;
      }
      const touched = at.getTime() - found.session.lastSeenAt.getTime() >= touchEveryMs;
      if (touched) await deps.sessions.touch(found.session.id, at);
      return { user: found.user, session: found.session, touched };
    },

    /** A captcha challenge for a sign-in as this email: harder while it keeps failing. */
    async captchaChallenge(email: string | undefined): Promise<unknown> {
      if (!deps.captcha.createChallenge) return null;
      const hardness = await deps.signInProtection.captchaHardness(email ? normalizeEmail(email) : undefined);
      return deps.captcha.createChallenge({ hardness });
    },

    /** The known-device token for a browser that just signed in as this user. */
    knownDeviceToken(userId: string): string {
      return deps.signInProtection.deviceToken(userId);
    },

    /** Uses an emailed unlock link: the known-device token for the browser that opened it, or null. */
    unlock(token: string, meta: RequestMeta): Promise<string | null> {
      return deps.signInProtection.unlock(token, meta);
    },

    /** Whether credentials issued by this session (viewer grants, upload tokens) may still be used. */
    isSessionUnrevoked(sessionId: string): Promise<boolean> {
      return deps.sessions.isUnrevoked(sessionId);
    },

    /**
     * Rotates both tokens. A refresh token works once. One presented again after it was exchanged
     * was copied: the session and every token descended from it are revoked (two tabs refreshing at
     * the same moment are a race, not a theft, so a reuse within a few seconds only fails).
     */
    async refresh(refreshToken: string, meta: RequestMeta): Promise<IssuedSession> {
      const oldHash = hashToken(refreshToken);
      const session = await deps.sessions.findActiveByRefreshHash(oldHash);
      const at = now();
      if (!session) {
        const rotated = await deps.sessions.findRotated(oldHash);
        if (rotated && at.getTime() - rotated.rotatedAt.getTime() > REFRESH_REUSE_GRACE_MS) {
          await deps.sessions.revoke(rotated.sessionId, 'refresh_token_reuse', at);
          await deps.audit({
            action: 'auth.refresh_reuse',
            outcome: 'denied',
            targetType: 'session',
            targetId: rotated.sessionId,
            requestId: meta.requestId,
            ip: meta.ip,
          });
        }
      }
      const user = session ? await deps.users.findById(session.userId) : undefined;
      if (!session || !user || expiryReason(session, at)) {
        if (session) await deps.sessions.revoke(session.id, 'expired', at);
        await deps.audit({
          action: 'auth.refresh',
          outcome: 'failure',
          requestId: meta.requestId,
          ip: meta.ip,
        });
        throw new AppError('UNAUTHORIZED', 'Your session has ended. Please sign in again.');
      }
      const authToken = newToken();
      const nextRefresh = newToken();
      const rotated = await deps.sessions.rotate(session.id, oldHash, {
        authTokenHash: hashToken(authToken),
        refreshTokenHash: hashToken(nextRefresh),
        at,
      });
      if (!rotated) throw new AppError('UNAUTHORIZED', 'Your session has ended. Please sign in again.');
      await deps.audit({
        actorId: user.id,
        actorRole: user.role,
        action: 'auth.refresh',
        outcome: 'success',
        targetType: 'session',
        targetId: session.id,
        requestId: meta.requestId,
        ip: meta.ip,
      });
      return { user, session, authToken, refreshToken: nextRefresh };
    },

    /** The user's live sessions for Settings, newest activity first; the caller's own is marked. */
    async listSessions(auth: { user: UserRow; session: SessionRow }) {
      const at = now();
      const rows = await deps.sessions.listUnrevokedForUser(auth.user.id);
      return rows
        .filter((row) => !expiryReason(row, at))
        .map((row) => ({
          id: row.id,
          device: describeUserAgent(row.userAgent),
          ip: row.ip,
          createdAt: row.createdAt.toISOString(),
          lastSeenAt: row.lastSeenAt.toISOString(),
          current: row.id === auth.session.id,
        }));
    },

    /**
     * Ends one of the user's own sessions; anyone else's id is "not found". Signing out another
     * device needs a recent proof of identity (this one's is a sign-out, which needs none).
     */
    async revokeSession(
      auth: { user: UserRow; session: SessionRow },
      sessionId: string,
      meta: RequestMeta,
    ): Promise<void> {
      if (sessionId !== auth.session.id) await deps.requireFreshProof(auth, 'auth.session_revoked', meta);
      const done =
        /^[0-9a-f-]{36}$/i.test(sessionId) &&
        (await deps.sessions.revokeForUser(auth.user.id, sessionId, 'revoked_by_user', now()));
      await deps.audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'auth.session_revoked',
        outcome: done ? 'success' : 'failure',
        targetType: 'session',
        targetId: sessionId.slice(0, 64),
        requestId: meta.requestId,
        ip: meta.ip,
      });
      if (!done) throw new AppError('NOT_FOUND', 'Session not found');
    },

    /** Ends every other session of the user (Settings "sign out other devices"); needs a recent proof. */
    async revokeOtherSessions(
      auth: { user: UserRow; session: SessionRow },
      meta: RequestMeta,
    ): Promise<number> {
      await deps.requireFreshProof(auth, 'auth.session_revoked', meta);
      const n = await deps.sessions.revokeAllForUser(auth.user.id, 'revoked_by_user', {
        exceptId: auth.session.id,
        at: now(),
      });
      await deps.audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'auth.session_revoked',
        outcome: 'success',
        targetType: 'user',
        targetId: auth.user.id,
        requestId: meta.requestId,
        ip: meta.ip,
        details: { scope: 'others', count: n },
      });
      return n;
    },

    async logout(auth: { user: UserRow; session: SessionRow }, meta: RequestMeta): Promise<void> {
      await deps.sessions.revoke(auth.session.id, 'logout', now());
      await deps.audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'auth.logout',
        outcome: 'success',
        targetType: 'session',
        targetId: auth.session.id,
        requestId: meta.requestId,
        ip: meta.ip,
      });
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
