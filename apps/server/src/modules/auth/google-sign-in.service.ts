import { normalizeEmail } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { UserRow, UsersRepository } from '../accounts';
import type { GoogleVerifier } from './google-verifier';
import type { RecoveryService } from './recovery.service';
import { completeFirstFactor, type FirstFactorDeps, type SignInResult } from './sign-in.service';

const GOOGLE_FAILURE = 'Google sign-in failed. Please try again.';

export interface GoogleSignInDeps extends FirstFactorDeps {
  users: Pick<UsersRepository, 'findByEmail' | 'findByGoogleSub' | 'linkGoogle' | 'insertIfEmailFree'>;
  recovery: Pick<RecoveryService, 'sendEmailVerification'>;
  /** Absent when GOOGLE_CLIENT_ID is not configured. */
  verifyGoogleToken?: GoogleVerifier;
  now: () => Date;
}

/** Sign-in with Google: an account keyed by Google's `sub`, linked to a password account or created. */
export function createGoogleSignInService(deps: GoogleSignInDeps) {
  const { now } = deps;
  return {
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
      if (bySub) return completeFirstFactor(deps, bySub, meta, 'google');
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
        return completeFirstFactor(deps, linked, meta, 'google');
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
      return completeFirstFactor(deps, created, meta, 'google');
    },
  };
}
export type GoogleSignInService = ReturnType<typeof createGoogleSignInService>;
