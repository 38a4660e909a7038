import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { MailService } from '../mail';
import { mfaCodeEmail } from '../mail';
import type { UserRow, UsersRepository } from '../accounts';
import type { MfaChallengeRow, MfaRepository } from './mfa.repository';
import { newRecoveryCode, newSixDigitCode, normalizeRecoveryCode, type Secrets } from './secrets';
import type { IssuedSession, IssueSession } from './session-issuer';
import type { RequestMeta } from '../../http/request-meta';
import type { Throttle } from '../rate-limit';
import { hashToken, newToken } from './tokens';
import type { AuthenticatedSession } from './session-issuer';
import type { FreshProofRule } from './fresh-proof';

export const MFA_INVALID_MESSAGE = 'Invalid/Expired Code';
const MFA_EXPIRED_MESSAGE = 'Your sign-in has expired. Please sign in again.';
/** A pending sign-in lives this long; each emailed code lives CODE_TTL_MS of it. */
export const CHALLENGE_TTL_MS = 15 * 60_000;
export const CODE_TTL_MS = 10 * 60_000;
/** Wrong tries a single code (or a whole authenticator challenge) survives. */
export const MAX_TRIES_PER_CODE = 5;
export const RESEND_COOLDOWN_MS = 30_000;
const WINDOW_MS = 15 * 60_000;
const MAX_VERIFY_PER_ACCOUNT = 20;
const MAX_VERIFY_PER_IP = 60;
const MAX_RESENDS_PER_ACCOUNT = 5;
const RECOVERY_CODE_COUNT = 10;
const TOTP_ISSUER = 'Medical Imaging';

interface Deps {
  users: UsersRepository;
  repo: MfaRepository;
  mail: MailService;
  audit: AuditRecorder;
  throttle: Throttle;
  secrets: Secrets;
  issueSession: IssueSession;
  /** Security settings (the authenticator, its recovery codes) need a recent proof (fresh-proof.ts). */
  requireFreshProof: FreshProofRule;
  now: () => Date;
}

type SignedIn = Pick<AuthenticatedSession, 'user' | 'session'>;

/** The pending sign-in that carries a session's emailed re-authentication codes. */
const proofChallengeOf = (sessionId: string) => `reauth:${sessionId}`;

export interface PendingSignIn {
  mfaToken: string;
  method: 'email' | 'totp';
  message: string;
}

function totpFor(secretBase32: string, label: string) {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** Audit records, emailed codes, the pending sign-in's challenge, attempt limits and authenticator codes. */
function createMfaTools(deps: Deps) {
  const { now } = deps;

  const audit = (
    user: UserRow | undefined,
    action: string,
    outcome: 'success' | 'failure' | 'denied',
    meta: RequestMeta,
    details?: Record<string, unknown>,
  ) =>
    deps.audit({
      actorId: user?.id ?? null,
      actorRole: user?.role ?? null,
      action,
      outcome,
      targetType: 'user',
      targetId: user?.id ?? null,
      requestId: meta.requestId,
      ip: meta.ip,
      details,
    });

  async function sendCode(
    challenge: MfaChallengeRow,
    user: UserRow,
    meta: RequestMeta,
    reason: 'login' | 'resend' | 'reauthenticate',
  ) {
    const code = newSixDigitCode();
    const at = now();
    await deps.repo.insertCode({
      challengeId: challenge.id,
      codeHash: deps.secrets.hashCode(challenge.id, code),
      expiresAt: new Date(at.getTime() + CODE_TTL_MS),
      createdAt: at,
    });
    await deps.mail.send(user.email, mfaCodeEmail({ code, minutes: CODE_TTL_MS / 60_000 }));
    await audit(user, 'auth.mfa.sent', 'success', meta, { method: 'email', reason });
  }

  async function liveChallenge(token: string | undefined): Promise<MfaChallengeRow> {
    const challenge = token ? await deps.repo.findLiveChallenge(hashToken(token), now()) : undefined;
    if (!challenge) throw new AppError('MFA_SESSION_EXPIRED', MFA_EXPIRED_MESSAGE);
    return challenge;
  }

  async function enforceLimits(user: UserRow, meta: RequestMeta) {
    const [byAccount, byIp] = await Promise.all([
      deps.throttle.count(`mfa:verify:account:${user.id}`, WINDOW_MS),
      deps.throttle.count(`mfa:verify:ip:${meta.ip}`, WINDOW_MS),
    ]);
    if (byAccount >= MAX_VERIFY_PER_ACCOUNT || byIp >= MAX_VERIFY_PER_IP) {
      await audit(user, 'auth.mfa.verify', 'denied', meta, { reason: 'rate_limited' });
      throw new AppError('RATE_LIMITED', 'Too many attempts. Please wait a few minutes and try again.');
    }
  }

  async function countFailure(
    user: UserRow,
    meta: RequestMeta,
    reason: string,
    details: Record<string, unknown> = {},
    action = 'auth.mfa.verify',
  ): Promise<never> {
    await Promise.all([
      deps.throttle.hit(`mfa:verify:account:${user.id}`),
      deps.throttle.hit(`mfa:verify:ip:${meta.ip}`),
    ]);
    await audit(user, action, 'failure', meta, { reason, ...details });
    throw new AppError('MFA_INVALID', MFA_INVALID_MESSAGE);
  }

  /** Checks an authenticator code, refusing a time step that was already used. */
  function checkTotp(user: UserRow, code: string, secretSealed: string | null): number | null {
    if (!secretSealed || !/^\d{6}$/.test(code)) return null;
    const totp = totpFor(deps.secrets.decrypt(secretSealed), user.email);
    const timestamp = now().getTime();
    const delta = totp.validate({ token: code, timestamp, window: 1 });
    if (delta === null) return null;
    const step = totp.counter({ timestamp }) + delta;
    if (user.totpLastStep !== null && step <= user.totpLastStep) return null;
    return step;
  }

  return { now, audit, sendCode, liveChallenge, enforceLimits, countFailure, checkTotp };
}
type MfaTools = ReturnType<typeof createMfaTools>;

/** The second step of signing in: a pending sign-in, its code, a new code. */
function createMfaSignIn(deps: Deps, tools: MfaTools) {
  const { now, audit, sendCode, liveChallenge, enforceLimits, countFailure, checkTotp } = tools;
  return {
    /** After a correct first factor: opens a pending sign-in and, for the email method, sends a code. */
    async begin(user: UserRow, meta: RequestMeta, firstFactor: string): Promise<PendingSignIn> {
      const method = user.mfaMethod === 'totp' && user.totpSecret ? 'totp' : 'email';
      const mfaToken = newToken();
      const at = now();
      const challenge = await deps.repo.insertChallenge({
        userId: user.id,
        tokenHash: hashToken(mfaToken),
        method,
        firstFactor,
        expiresAt: new Date(at.getTime() + CHALLENGE_TTL_MS),
        createdAt: at,
      });
      await audit(user, 'auth.mfa.challenge', 'success', meta, { method, firstFactor });
      if (method === 'email') {
        await sendCode(challenge, user, meta, 'login');
        return { mfaToken, method, message: 'A verification code has been sent to your email.' };
      }
      return { mfaToken, method, message: 'Enter the code from your authenticator app.' };
    },

    /** POST /api/mfa/verify: the code plus the pending sign-in's token yields a session. */
    async verify(
      body: { mfaSecret: string; email: string; userId: string },
      token: string | undefined,
      meta: RequestMeta,
    ): Promise<IssuedSession> {
      const challenge = await liveChallenge(token);
      const user = await deps.users.findById(challenge.userId);
      if (!user) throw new AppError('MFA_SESSION_EXPIRED', MFA_EXPIRED_MESSAGE);
      await enforceLimits(user, meta);
      if (body.userId !== user.id || normalizeEmail(body.email) !== user.emailNormalized) {
        await countFailure(user, meta, 'identity_mismatch');
      }
      const secret = body.mfaSecret.trim();
      const at = now();
      let factor: string;

      if (challenge.method === 'email') {
        const code = await deps.repo.latestCode(challenge.id);
        if (!code || code.usedAt || code.expiresAt.getTime() <= at.getTime()) {
          await countFailure(user, meta, code?.usedAt ? 'code_spent' : 'code_expired', { method: 'email' });
        }
        if (!deps.secrets.sameHash(code!.codeHash, deps.secrets.hashCode(challenge.id, secret))) {
          const tries = await deps.repo.failCode(code!.id, MAX_TRIES_PER_CODE, at);
          await countFailure(user, meta, 'wrong_code', { method: 'email', tries });
        }
        if (!(await deps.repo.useCode(code!.id, at)))
          await countFailure(user, meta, 'code_spent', { method: 'email' });
        factor = 'email';
      } else {
        if (challenge.failedAttempts >= MAX_TRIES_PER_CODE)
          await countFailure(user, meta, 'too_many_tries', { method: 'totp' });
        const step = checkTotp(user, secret, user.totpSecret);
        if (step !== null) {
          await deps.users.update(user.id, { totpLastStep: step });
          factor = 'totp';
        } else if (
          await deps.repo.useRecoveryCode(
            user.id,
            deps.secrets.hashCode(`recovery:${user.id}`, normalizeRecoveryCode(secret)),
            at,
          )
        ) {
          factor = 'recovery_code';
        } else {
          const tries = await deps.repo.failChallenge(challenge.id);
          await countFailure(user, meta, 'wrong_code', { method: 'totp', tries });
          factor = '';
        }
      }

      if (!(await deps.repo.consumeChallenge(challenge.id, at)))
        await countFailure(user, meta, 'challenge_spent');
      await deps.throttle.clear(`mfa:verify:account:${user.id}`);
      await audit(user, 'auth.mfa.verify', 'success', meta, { method: factor });
      const fresh = (await deps.users.findById(user.id)) ?? user;
      return deps.issueSession(fresh, meta, `${challenge.firstFactor}+${factor}`);
    },

    /** POST /api/mfa/resend: a new emailed code for the same pending sign-in, at most every 30 s. */
    async resend(email: string, token: string | undefined, meta: RequestMeta): Promise<{ message: string }> {
      const challenge = await liveChallenge(token);
      const user = await deps.users.findById(challenge.userId);
      if (!user || normalizeEmail(email) !== user.emailNormalized || challenge.method !== 'email') {
        throw new AppError('MFA_SESSION_EXPIRED', MFA_EXPIRED_MESSAGE);
      }
      const last = await deps.repo.latestCode(challenge.id);
      const at = now();
      const tooSoon = last && at.getTime() - last.createdAt.getTime() < RESEND_COOLDOWN_MS;
      const key = `mfa:resend:account:${user.id}`;
      if (tooSoon || (await deps.throttle.count(key, WINDOW_MS)) >= MAX_RESENDS_PER_ACCOUNT) {
        await audit(user, 'auth.mfa.sent', 'denied', meta, { reason: tooSoon ? 'cooldown' : 'rate_limited' });
        throw new AppError('RATE_LIMITED', 'Please wait before requesting another code.');
      }
      await deps.throttle.hit(key);
      await sendCode(challenge, user, meta, 'resend');
      return { message: 'A new verification code has been sent to your email.' };
    },
  };
}

/** A fresh proof of identity for a signed-in user (security settings): the code, or one sent by email. */
function createMfaProof(deps: Deps, tools: MfaTools) {
  const { now, audit, sendCode, enforceLimits, countFailure, checkTotp } = tools;
  return {
    /**
     * A second-factor code as a proof of identity for security settings (POST
     * /api/auth/reauthenticate): the authenticator's current code when one is enrolled, otherwise a
     * code emailed for this session (sendProofCode). Same limits as the sign-in's second factor.
     */
    async proveWithCode(auth: SignedIn, code: string, meta: RequestMeta): Promise<'totp' | 'email'> {
      const user = (await deps.users.findById(auth.user.id)) ?? auth.user;
      const action = 'auth.reauthenticate';
      await enforceLimits(user, meta);
      const secret = code.trim();
      if (user.totpSecret) {
        const step = checkTotp(user, secret, user.totpSecret);
        if (step === null) await countFailure(user, meta, 'wrong_code', { method: 'totp' }, action);
        await deps.users.update(user.id, { totpLastStep: step });
        return 'totp';
      }
      const at = now();
      const challenge = user.mfaEnabled
        ? await deps.repo.findLiveChallengeFor(user.id, proofChallengeOf(auth.session.id), at)
        : undefined;
      const latest = challenge ? await deps.repo.latestCode(challenge.id) : undefined;
      if (!challenge || !latest || latest.usedAt || latest.expiresAt.getTime() <= at.getTime())
        await countFailure(
          user,
          meta,
          latest?.usedAt ? 'code_spent' : 'no_code',
          { method: 'email' },
          action,
        );
      if (!deps.secrets.sameHash(latest!.codeHash, deps.secrets.hashCode(challenge!.id, secret))) {
        const tries = await deps.repo.failCode(latest!.id, MAX_TRIES_PER_CODE, at);
        await countFailure(user, meta, 'wrong_code', { method: 'email', tries }, action);
      }
      if (!(await deps.repo.useCode(latest!.id, at)))
        await countFailure(user, meta, 'code_spent', { method: 'email' }, action);
      await deps.repo.consumeChallenge(challenge!.id, at);
      return 'email';
    },

    /**
     * Emails a code that proves it is you to this session (POST /api/auth/reauthenticate/code): for
     * accounts whose second factor is emailed codes; at most one every 30 s, five in 15 minutes.
     */
    async sendProofCode(auth: SignedIn, meta: RequestMeta): Promise<{ message: string }> {
      const user = (await deps.users.findById(auth.user.id)) ?? auth.user;
      if (!user.mfaEnabled || user.totpSecret)
        throw new AppError(
          'BAD_REQUEST',
          user.totpSecret
            ? 'Use the code from your authenticator app.'
            : 'Codes are sent to accounts with two-factor sign-in by email. Use your password instead.',
        );
      const at = now();
      const firstFactor = proofChallengeOf(auth.session.id);
      let challenge = await deps.repo.findLiveChallengeFor(user.id, firstFactor, at);
      const last = challenge ? await deps.repo.latestCode(challenge.id) : undefined;
      const tooSoon = last && at.getTime() - last.createdAt.getTime() < RESEND_COOLDOWN_MS;
      const key = `mfa:resend:account:${user.id}`;
      if (tooSoon || (await deps.throttle.count(key, WINDOW_MS)) >= MAX_RESENDS_PER_ACCOUNT) {
        await audit(user, 'auth.mfa.sent', 'denied', meta, { reason: tooSoon ? 'cooldown' : 'rate_limited' });
        throw new AppError('RATE_LIMITED', 'Please wait before requesting another code.');
      }
      await deps.throttle.hit(key);
      challenge ??= await deps.repo.insertChallenge({
        userId: user.id,
        tokenHash: hashToken(newToken()),
        method: 'email',
        firstFactor,
        expiresAt: new Date(at.getTime() + CHALLENGE_TTL_MS),
        createdAt: at,
      });
      await sendCode(challenge, user, meta, 'reauthenticate');
      return { message: `A verification code has been sent to ${user.email}.` };
    },
  };
}

/** An authenticator app: enrolled, confirmed with a first code, removed. */
function createTotpEnrolment(deps: Deps, tools: MfaTools) {
  const { now, audit, checkTotp } = tools;
  return {
    /** Starts authenticator enrolment: a new secret, kept pending until a first code confirms it. */
    async setupTotp(auth: SignedIn, meta: RequestMeta) {
      await deps.requireFreshProof(auth, 'auth.mfa.totp_setup', meta);
      const user = auth.user;
      const secret = new Secret({ size: 20 }).base32;
      const totp = totpFor(secret, user.email);
      await deps.users.update(user.id, { totpPendingSecret: deps.secrets.encrypt(secret), updatedAt: now() });
      await audit(user, 'auth.mfa.totp_setup', 'success', meta);
      const otpauthUrl = totp.toString();
      const qrCodeDataUrl = await QRCode.toDataURL(otpauthUrl, { width: 240, margin: 2 });
      return { secret, otpauthUrl, qrCodeDataUrl };
    },

    /** Finishes enrolment with a first code; the authenticator becomes the method and recovery codes are issued once. */
    async confirmTotp(
      auth: SignedIn,
      code: string,
      meta: RequestMeta,
    ): Promise<{ user: UserRow; recoveryCodes: string[] }> {
      // It replaces the recovery codes and the method: a security setting.
      await deps.requireFreshProof(auth, 'auth.mfa.totp_enrolled', meta);
      const user = auth.user;
      const step = user.totpPendingSecret
        ? checkTotp({ ...user, totpLastStep: null }, code, user.totpPendingSecret)
        : null;
      if (step === null) {
        await audit(user, 'auth.mfa.totp_enrolled', 'failure', meta);
        throw new AppError(
          'BAD_REQUEST',
          'That code is not correct. Check the time on your device and try again.',
        );
      }
      const at = now();
      const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      await deps.repo.replaceRecoveryCodes(
        user.id,
        recoveryCodes.map((c) => deps.secrets.hashCode(`recovery:${user.id}`, normalizeRecoveryCode(c))),
        at,
      );
      const updated = await deps.users.update(user.id, {
        totpSecret: user.totpPendingSecret,
        totpPendingSecret: null,
        totpLastStep: step,
        mfaEnabled: true,
        mfaMethod: 'totp',
        updatedAt: at,
      });
      await audit(user, 'auth.mfa.totp_enrolled', 'success', meta);
      return { user: updated ?? user, recoveryCodes };
    },

    /** Removes the authenticator and revokes its recovery codes; a user who used it falls back to emailed codes. */
    async removeTotp(auth: SignedIn, meta: RequestMeta): Promise<UserRow> {
      await deps.requireFreshProof(auth, 'auth.mfa.totp_removed', meta);
      const user = auth.user;
      await deps.repo.replaceRecoveryCodes(user.id, [], now());
      const updated = await deps.users.update(user.id, {
        totpSecret: null,
        totpPendingSecret: null,
        totpLastStep: null,
        mfaMethod: user.mfaMethod === 'totp' ? 'email' : user.mfaMethod,
        updatedAt: now(),
      });
      await audit(user, 'auth.mfa.totp_removed', 'success', meta);
      return updated ?? user;
    },
  };
}

/**
 * The second factor: a pending sign-in (created after a correct first factor) that only a valid
 * emailed code, authenticator code or recovery code turns into a session.
 */
export function createMfaService(deps: Deps) {
  const tools = createMfaTools(deps);
  return {
    ...createMfaSignIn(deps, tools),
    ...createMfaProof(deps, tools),
    ...createTotpEnrolment(deps, tools),
  };
}
export type MfaService = ReturnType<typeof createMfaService>;
