import type { Logger } from 'pino';
import type { Config } from '../../config';
import { createCaptchaVerifier } from '../../ports/captcha/index';
import { authRoutes } from './auth.routes';
import { createAuthService } from './auth.service';
import { createEmailTokensRepository } from './email-tokens.repository';
import { createFreshProofRule } from './fresh-proof';
import { createGoogleVerifier } from './google-verifier';
import { createMfaRepository } from './mfa.repository';
import { mfaRoutes } from './mfa.routes';
import { createMfaService } from './mfa.service';
import { createRecoveryService } from './recovery.service';
import { createSecrets } from './secrets';
import { createSecurityService } from './security.service';
import type { SessionCache } from './session-cache';
import { createSessionIssuer } from './session-issuer';
import { createSessionsRepository } from './sessions.repository';
import { createSignInProtection } from './sign-in-protection';

type ServiceDeps = Parameters<typeof createAuthService>[0];

export interface AuthModuleDeps extends Pick<ServiceDeps, 'users' | 'mail' | 'audit' | 'throttle' | 'now'> {
  db: Parameters<typeof createSessionsRepository>[0];
  config: Parameters<typeof createCaptchaVerifier>[0] &
    Pick<Config, 'sessionMaxMs' | 'sessionIdleMs' | 'publicUrl' | 'googleClientId' | 'googleJwksUrl'>;
  /** Spent captcha challenges, shared by every API process (modules/rate-limit). */
  spentChallenges: Parameters<typeof createCaptchaVerifier>[1];
  log: Logger;
  /** Live sessions in memory (session-cache.ts), kept by the sessions repository. */
  sessionCache: SessionCache;
  /** Registration through an emailed invitation (modules/invitations). */
  invitations: ServiceDeps['referrals'];
}

/** Sessions, their second factor and proofs of identity: what every other piece of auth builds on. */
function createSessionParts({ db, config, sessionCache, audit, now }: AuthModuleDeps) {
  const sessions = createSessionsRepository(db, sessionCache);
  return {
    sessions,
    mfaRepo: createMfaRepository(db),
    emailTokens: createEmailTokensRepository(db),
    secrets: createSecrets(config.sessionSecret),
    issueSession: createSessionIssuer({ sessions, audit, sessionMaxMs: config.sessionMaxMs, now }),
    // Security settings need a recent proof of identity (fresh-proof.ts).
    requireFreshProof: createFreshProofRule({ audit, now }),
    verifyGoogleToken: config.googleClientId
      ? createGoogleVerifier({ clientId: config.googleClientId, jwksUrl: config.googleJwksUrl, now })
      : undefined,
  };
}

/** Sign-up, sign-in, sessions, two-factor, recovery and security settings. */
export function createAuthModule(deps: AuthModuleDeps) {
  const { config, users, mail, audit, throttle, now } = deps;
  const parts = createSessionParts(deps);
  const captcha = createCaptchaVerifier(config, deps.spentChallenges);
  const { sessions, mfaRepo, emailTokens, issueSession, requireFreshProof, verifyGoogleToken } = parts;
  const appUrl = config.publicUrl;
  const mfa = createMfaService({
    users,
    repo: mfaRepo,
    mail,
    audit,
    throttle,
    secrets: parts.secrets,
    issueSession,
    requireFreshProof,
    now,
  });
  const signInProtection = createSignInProtection({
    throttle,
    tokens: emailTokens,
    users,
    mail,
    audit,
    sessionSecret: config.sessionSecret,
    appUrl,
    now,
  });
  const recovery = createRecoveryService({
    users,
    sessions,
    tokens: emailTokens,
    mfa: mfaRepo,
    mail,
    audit,
    throttle,
    log: deps.log,
    appUrl,
    now,
  });
  const auth = createAuthService({
    users,
    sessions,
    captcha,
    mail,
    audit,
    throttle,
    signInProtection,
    mfa,
    recovery,
    issueSession,
    verifyGoogleToken,
    appUrl,
    sessionIdleMs: config.sessionIdleMs,
    referrals: deps.invitations,
    requireFreshProof,
    now,
  });
  const security = createSecurityService({
    users,
    sessions,
    tokens: emailTokens,
    mfaRepo,
    mfa,
    mail,
    audit,
    throttle,
    requireFreshProof,
    verifyGoogleToken,
    appUrl,
    now,
  });
  return {
    ...parts,
    captcha,
    auth,
    mfa,
    recovery,
    security,
    routes: (app: Config) => [
      authRoutes({ auth, recovery, security, captcha, config: app }),
      mfaRoutes({ mfa, auth, config: app }),
    ],
  };
}
