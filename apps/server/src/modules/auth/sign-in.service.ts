import type { LoginBody } from '@mi/contracts/auth';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { UserRow, UsersRepository } from '../accounts';
import type { AuditRecorder } from '../audit';
import type { Throttle } from '../rate-limit';
import type { RequireCaptcha } from './captcha-check';
import type { MfaService, PendingSignIn } from './mfa.service';
import { burnPasswordCheck, verifyPassword } from './password';
import type { IssuedSession, IssueSession } from './session-issuer';
import { LOGIN_WINDOW_MS, type SignInProtection } from './sign-in-protection';

/** What a correct first factor leads to: a session, or a pending sign-in waiting for the second factor. */
export type SignInResult =
  { kind: 'session'; issued: IssuedSession } | { kind: 'mfa'; user: UserRow; pending: PendingSignIn };

export const INVALID_CREDENTIALS = 'Invalid email or password. Please try again.';
export const ACCOUNT_DISABLED = 'This account has been disabled. Please contact support.';
const TOO_MANY_LOGINS = 'Too many sign-in attempts. Please wait 15 minutes and try again.';
/** Failed sign-ins allowed per IP in the window (per account: see sign-in-protection.ts). */
const MAX_LOGIN_FAILURES_PER_IP = 100;

export interface SignInDeps {
  users: Pick<UsersRepository, 'findByEmail'>;
  requireCaptcha: RequireCaptcha;
  audit: AuditRecorder;
  throttle: Throttle;
  signInProtection: Pick<SignInProtection, 'captchaHardness' | 'judge' | 'failed' | 'succeeded'>;
  mfa: Pick<MfaService, 'begin'>;
  issueSession: IssueSession;
}

/** What finishing a first factor needs: the second factor, or a session. */
export type FirstFactorDeps = Pick<SignInDeps, 'audit' | 'mfa' | 'issueSession'>;

/** Every first factor ends here: the second factor when enabled, otherwise a session. */
export async function completeFirstFactor(
  deps: FirstFactorDeps,
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

/** Sign-in with a password, up to the second factor or a session (Google's: google-sign-in.service.ts). */
export function createSignInService(deps: SignInDeps) {
  const { requireCaptcha } = deps;

  return {
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
      return completeFirstFactor(deps, user, meta, 'password');
    },
  };
}
export type SignInService = ReturnType<typeof createSignInService>;
