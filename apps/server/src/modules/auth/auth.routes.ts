import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  changeEmailBodySchema,
  changePasswordBodySchema,
  forgotPasswordBodySchema,
  googleLoginBodySchema,
  loginBodySchema,
  loginResponseSchema,
  messageSchema,
  publicConfigSchema,
  reauthenticateBodySchema,
  reauthenticateResponseSchema,
  refreshBodySchema,
  registerBodySchema,
  resetPasswordBodySchema,
  sessionListSchema,
  tokenPairSchema,
  userSchema,
  verifyEmailBodySchema,
  verifyResetTokenBodySchema,
  verifyResetTokenResponseSchema,
  type LoginResponse,
} from '@mi/contracts/auth';
import { errorBodySchema } from '@mi/contracts/errors';
import { z } from 'zod';
import { requestMeta, requireSession, requireUser } from '../../http/auth-hook';
import {
  clearMfaPendingCookie,
  clearSessionCookies,
  KNOWN_DEVICE_COOKIE,
  REFRESH_COOKIE,
  setKnownDeviceCookie,
  setMfaPendingCookie,
  setSessionCookies,
} from '../../http/session-cookies';
import type { Config } from '../../config';
import { AppError } from '../../http/app-error';
import { toUserDto } from '../../http/user-dto';
import type { CaptchaVerifier } from '../../ports/captcha/captcha';
import type { AuthService, SignInResult } from './auth.service';
import { CHALLENGE_TTL_MS } from './mfa.service';
import type { RecoveryService } from './recovery.service';
import type { SecurityService } from './security.service';

const authRateLimit = { rateLimit: { max: 30, timeWindow: '1 minute' } };
const recoveryRateLimit = { rateLimit: { max: 10, timeWindow: '1 minute' } };
const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  429: errorBodySchema,
};

export interface AuthRoutesOptions {
  auth: AuthService;
  recovery: RecoveryService;
  security: SecurityService;
  captcha: CaptchaVerifier;
  config: Pick<
    Config,
    | 'secureCookies'
    | 'googleClientId'
    | 'termsUrl'
    | 'defaultMaxStorageGB'
    | 'sessionIdleMs'
    | 'sessionWarningMs'
  >;
}

/** Sign-up, sign-in (password, Google, refresh, unlock), sign-out, sessions, recovery and email checks. */
export function authRoutes({
  auth,
  recovery,
  security,
  captcha,
  config,
}: AuthRoutesOptions): FastifyPluginAsyncZod {
  const secure = config.secureCookies;

  /** The login answer: tokens when signed in, or mfaEnabled plus the pending-login token. */
  function sendSignIn(reply: FastifyReply, result: SignInResult, message: string): LoginResponse {
    if (result.kind === 'mfa') {
      setMfaPendingCookie(reply, result.pending.mfaToken, CHALLENGE_TTL_MS / 1000, secure);
      return {
        message: result.pending.message,
        data: {
          id: result.user.id,
          email: result.user.email,
          mfaEnabled: true,
          mfaMethod: result.pending.method,
          mfaToken: result.pending.mfaToken,
          accountStatus: result.user.accountStatus,
        },
      };
    }
    const { issued } = result;
    setSessionCookies(reply, issued, secure);
    setKnownDeviceCookie(reply, auth.knownDeviceToken(issued.user.id), secure);
    return {
      message,
      data: {
        id: issued.user.id,
        email: issued.user.email,
        mfaEnabled: false,
        accountStatus: issued.user.accountStatus,
        authToken: issued.authToken,
        refreshToken: issued.refreshToken,
      },
    };
  }

  return async (app) => {
    app.get(
      '/config',
      {
        schema: {
          tags: ['auth'],
          summary: 'What the sign-in screens need',
          response: { 200: publicConfigSchema },
        },
      },
      async () => ({
        captcha: captcha.publicConfig(),
        googleClientId: config.googleClientId ?? null,
        termsUrl: config.termsUrl ?? null,
        defaultMaxStorageGB: config.defaultMaxStorageGB,
        session: {
          idleMinutes: config.sessionIdleMs / 60_000,
          warningMinutes: config.sessionWarningMs / 60_000,
        },
      }),
    );

    app.get(
      '/auth/captcha/challenge',
      {
        schema: {
          tags: ['auth'],
          summary:
            'A new ALTCHA proof-of-work challenge; with `email`, as hard as sign-ins to that email currently need',
          querystring: z.object({ email: z.string().max(320).optional() }),
          response: { 200: z.unknown(), 404: errorBodySchema },
        },
      },
      async (req, reply) => {
        if (!captcha.createChallenge) throw new AppError('NOT_FOUND', 'Not found');
        reply.header('cache-control', 'no-store');
        return auth.captchaChallenge(req.query.email);
      },
    );

    app.post(
      '/auth/register',
      {
        config: authRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Create a patient or professional account',
          body: registerBodySchema,
          response: { 201: loginResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const result = await auth.register(req.body, requestMeta(req));
        if ('pending' in result) {
          // A professional waits for an admin: no session yet.
          return reply.status(201).send({
            message: 'Registration successful',
            data: {
              id: result.pending.id,
              email: result.pending.email,
              mfaEnabled: false,
              accountStatus: result.pending.accountStatus,
            },
          });
        }
        return reply
          .status(201)
          .send(sendSignIn(reply, { kind: 'session', issued: result }, 'Registration successful'));
      },
    );

    app.post(
      '/auth/login',
      {
        config: authRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Sign in with email and password',
          body: loginBodySchema,
          response: { 200: loginResponseSchema, ...errors },
        },
      },
      async (req, reply) =>
        sendSignIn(
          reply,
          await auth.login(req.body, requestMeta(req), req.cookies[KNOWN_DEVICE_COOKIE]),
          'Logged in Successfully',
        ),
    );

    app.post(
      '/auth/google',
      {
        config: authRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Sign in with a Google ID token',
          body: googleLoginBodySchema,
          response: { 200: loginResponseSchema, ...errors },
        },
      },
      async (req, reply) =>
        sendSignIn(
          reply,
          await auth.googleSignIn(req.body.credential, requestMeta(req)),
          'Logged in Successfully',
        ),
    );

    app.post(
      '/auth/refresh',
      {
        config: authRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Rotate the session tokens',
          body: refreshBodySchema,
          response: { 200: tokenPairSchema, 401: errorBodySchema },
        },
      },
      async (req, reply) => {
        const token = req.body?.refreshToken ?? req.cookies[REFRESH_COOKIE];
        if (!token) throw new AppError('UNAUTHORIZED', 'Your session has ended. Please sign in again.');
        const result = await auth.refresh(token, requestMeta(req));
        setSessionCookies(reply, result, secure);
        return {
          message: 'Session refreshed',
          authToken: result.authToken,
          refreshToken: result.refreshToken,
        };
      },
    );

    app.get(
      '/auth/unlock',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Emailed one-time link: lets this browser sign in while failed attempts lock the account',
          querystring: z.object({ token: z.string().min(1).max(200) }),
          response: { 302: z.null() },
        },
      },
      async (req, reply) => {
        const deviceToken = await auth.unlock(req.query.token, requestMeta(req));
        if (deviceToken) setKnownDeviceCookie(reply, deviceToken, secure);
        return reply.redirect(`/login?unlocked=${deviceToken ? '1' : '0'}`, 302);
      },
    );

    app.post(
      '/auth/logout',
      { schema: { tags: ['auth'], summary: 'End this session', response: { 200: messageSchema } } },
      async (req, reply) => {
        if (req.auth) await auth.logout(req.auth, requestMeta(req));
        clearSessionCookies(reply, secure);
        clearMfaPendingCookie(reply, secure);
        return { message: 'Logged out successfully' };
      },
    );

    app.get(
      '/auth/me',
      {
        schema: {
          tags: ['auth'],
          summary: 'The signed-in user',
          response: { 200: userSchema, 401: errorBodySchema },
        },
      },
      async (req) => toUserDto(requireSession(req).user, config.defaultMaxStorageGB),
    );

    app.post(
      '/auth/forgot-password',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Email a password reset link',
          body: forgotPasswordBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => recovery.forgotPassword(req.body.email, requestMeta(req)),
    );

    app.post(
      '/auth/verifyResetToken',
      {
        config: authRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Whether a reset link is still valid',
          body: verifyResetTokenBodySchema,
          response: { 200: verifyResetTokenResponseSchema, ...errors },
        },
      },
      async (req) => ({ isValid: await recovery.verifyResetToken(req.body.email, req.body.challenge) }),
    );

    app.post(
      '/auth/reset-password',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Choose a new password with a reset link',
          body: resetPasswordBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => recovery.resetPassword(req.body, requestMeta(req)),
    );

    app.post(
      '/auth/verify-email',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Confirm email ownership (or a change of address) with the emailed link',
          body: verifyEmailBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) =>
        (await security.confirmEmailChange(req.body.token, requestMeta(req))) ??
        recovery.verifyEmail(req.body.token, requestMeta(req)),
    );

    app.post(
      '/auth/verify-email/resend',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Email a new verification link',
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => recovery.resendEmailVerification(requireSession(req).user, requestMeta(req)),
    );

    app.post(
      '/auth/reauthenticate',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Confirm it is you, so security settings may be changed for the next few minutes',
          description:
            'One of: the current password, a second-factor code (authenticator, or emailed by /auth/reauthenticate/code), or a Google ID token of your Google account issued in the last few minutes.',
          body: reauthenticateBodySchema,
          response: { 200: reauthenticateResponseSchema, ...errors },
        },
      },
      async (req) => security.reauthenticate(requireUser(req), req.body, requestMeta(req)),
    );

    app.post(
      '/auth/reauthenticate/code',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Email a code to confirm it is you (accounts with two-factor sign-in by email)',
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => security.sendCode(requireUser(req), requestMeta(req)),
    );

    app.post(
      '/auth/password',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Change your password; your other sessions are signed out',
          description:
            'With `currentPassword`; an account without a password (Google) sets one after a recent proof of identity.',
          body: changePasswordBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) =>
        security.changePassword(requireUser(req, { passwordChange: true }), req.body, requestMeta(req)),
    );

    app.post(
      '/auth/email',
      {
        config: recoveryRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Change your email address: a confirmation link goes to the new one',
          description: 'Needs a recent proof of identity (POST /api/auth/reauthenticate).',
          body: changeEmailBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => security.requestEmailChange(requireUser(req), req.body.newEmail, requestMeta(req)),
    );

    app.get(
      '/auth/sessions',
      {
        schema: {
          tags: ['auth'],
          summary: "The signed-in user's active sessions",
          response: { 200: sessionListSchema, 401: errorBodySchema },
        },
      },
      async (req) => ({ data: await auth.listSessions(requireSession(req)) }),
    );

    app.delete(
      '/auth/sessions/:id',
      {
        schema: {
          tags: ['auth'],
          summary: 'End one of your sessions',
          params: z.object({ id: z.string().max(100) }),
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req, reply) => {
        const current = requireSession(req);
        await auth.revokeSession(current, req.params.id, requestMeta(req));
        if (req.params.id === current.session.id) clearSessionCookies(reply, secure);
        return { message: 'Session revoked' };
      },
    );

    app.post(
      '/auth/sessions/revoke-others',
      {
        schema: {
          tags: ['auth'],
          summary: 'End every other session (needs a recent proof of identity)',
          response: { 200: messageSchema, 401: errorBodySchema },
        },
      },
      async (req) => {
        const n = await auth.revokeOtherSessions(requireSession(req), requestMeta(req));
        return {
          message: n === 1 ? '1 other session was signed out.' : `${n} other sessions were signed out.`,
        };
      },
    );
  };
}
