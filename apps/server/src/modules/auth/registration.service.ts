import type { RegisterBody } from '@mi/contracts/auth';
import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { NewUserRow, UserRow, UsersRepository } from '../accounts';
import type { AuditRecorder } from '../audit';
import { duplicateRegistrationEmail, welcomeEmail, type MailService } from '../mail';
import type { RequireCaptcha } from './captcha-check';
import { hashPassword } from './password';
import type { RecoveryService } from './recovery.service';
import type { IssuedSession, IssueSession } from './session-issuer';

const GENERIC_REGISTRATION_FAILURE = 'Registration failed. Please try again.';

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

export interface RegistrationDeps {
  users: Pick<UsersRepository, 'insertIfEmailFree' | 'insertProfessionalIfEmailFree'>;
  requireCaptcha: RequireCaptcha;
  mail: Pick<MailService, 'send'>;
  audit: AuditRecorder;
  recovery: Pick<RecoveryService, 'createEmailVerificationLink'>;
  issueSession: IssueSession;
  appUrl: string;
  /** Registration through an emailed invitation (`referral`). */
  referrals?: ReferralRegistration;
  now: () => Date;
}

/** New accounts: a patient signed in at once, a professional waiting for an admin, or an invitation's. */
export function createRegistrationService(deps: RegistrationDeps) {
  const { now, requireCaptcha } = deps;
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
  };
}
export type RegistrationService = ReturnType<typeof createRegistrationService>;
