import type { CaptchaVerifier } from '../../ports/captcha/captcha';
import type { UsersRepository } from '../accounts';
import type { AuditRecorder } from '../audit';
import type { MailService } from '../mail';
import type { Throttle } from '../rate-limit';
import { createAccountUnlockService } from './account-unlock.service';
import { createCaptchaCheck } from './captcha-check';
import type { FreshProofRule } from './fresh-proof';
import type { GoogleVerifier } from './google-verifier';
import type { MfaService } from './mfa.service';
import type { RecoveryService } from './recovery.service';
import { createRegistrationService, type ReferralRegistration } from './registration.service';
import type { IssueSession } from './session-issuer';
import type { SessionsRepository } from './sessions.repository';
import { createSessionsService } from './sessions.service';
import { createGoogleSignInService } from './google-sign-in.service';
import { createSignInService } from './sign-in.service';
import { createSignOutService } from './sign-out.service';
import type { SignInProtection } from './sign-in-protection';

export type { AuthenticatedSession, IssuedSession } from './session-issuer';
export { CAPTCHA_MESSAGE } from './captcha-check';
export type { ReferralRegistration } from './registration.service';
export { ACCOUNT_DISABLED, INVALID_CREDENTIALS, type SignInResult } from './sign-in.service';

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
 * Registration (registration.service.ts, invitations' referrals included), sign-in with a password
 * (sign-in.service.ts) or Google (google-sign-in.service.ts), server-side sessions
 * (sessions.service.ts), the devices list and sign-out (sign-out.service.ts), and unlocking an
 * account under repeated failed sign-ins (account-unlock.service.ts), built together.
 */
export function createAuthService(deps: Deps) {
  const { users, audit, now } = deps;
  const requireCaptcha = createCaptchaCheck({ captcha: deps.captcha, audit });
  return {
    ...createRegistrationService({
      users,
      requireCaptcha,
      mail: deps.mail,
      audit,
      recovery: deps.recovery,
      issueSession: deps.issueSession,
      appUrl: deps.appUrl,
      referrals: deps.referrals,
      now,
    }),
    ...createSignInService({
      users,
      requireCaptcha,
      audit,
      throttle: deps.throttle,
      signInProtection: deps.signInProtection,
      mfa: deps.mfa,
      issueSession: deps.issueSession,
    }),
    ...createGoogleSignInService({
      users,
      audit,
      mfa: deps.mfa,
      issueSession: deps.issueSession,
      recovery: deps.recovery,
      verifyGoogleToken: deps.verifyGoogleToken,
      now,
    }),
    ...createSessionsService({
      users,
      sessions: deps.sessions,
      audit,
      sessionIdleMs: deps.sessionIdleMs,
      now,
    }),
    ...createSignOutService({
      sessions: deps.sessions,
      audit,
      sessionIdleMs: deps.sessionIdleMs,
      requireFreshProof: deps.requireFreshProof,
      now,
    }),
    ...createAccountUnlockService({ captcha: deps.captcha, signInProtection: deps.signInProtection }),
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
