// modules/auth: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { authRoutes } from './auth.routes';
export { type AuthenticatedSession, type AuthService, createAuthService } from './auth.service';
export { createEmailTokensRepository } from './email-tokens.repository';
export { createFreshProofRule, type FreshProofRule } from './fresh-proof';
export { createGoogleVerifier } from './google-verifier';
export { createMfaRepository } from './mfa.repository';
export { mfaRoutes } from './mfa.routes';
export { createMfaService, type MfaService } from './mfa.service';
export { hashPassword, verifyPassword } from './password';
export { createRecoveryService, type RecoveryService } from './recovery.service';
export { createSealer, createSecrets, type Secrets } from './secrets';
export { createSecurityService, type SecurityService } from './security.service';
export { createSessionCache, type SessionCache } from './session-cache';
export { createSessionIssuer, type IssuedSession, type IssueSession } from './session-issuer';
export { createSessionsRepository, type SessionsRepository } from './sessions.repository';
export { createSignInProtection } from './sign-in-protection';
export { createAuthModule } from './auth.module';
