import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  messageSchema,
  mfaResendBodySchema,
  mfaVerifyBodySchema,
  mfaVerifyResponseSchema,
  totpConfirmBodySchema,
  totpConfirmResponseSchema,
  totpSetupResponseSchema,
  userSchema,
} from '@mi/contracts/auth';
import { errorBodySchema } from '@mi/contracts/errors';
import { requestMeta, requireUser } from '../../http/auth-hook';
import {
  clearMfaPendingCookie,
  MFA_PENDING_COOKIE,
  setKnownDeviceCookie,
  setSessionCookies,
} from '../../http/session-cookies';
import { toUserDto } from '../../http/user-dto';
import type { AuthService } from './auth.service';
import type { MfaService } from './mfa.service';

const mfaRateLimit = { rateLimit: { max: 20, timeWindow: '1 minute' } };
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 429: errorBodySchema };

/** `/api/mfa/*`: the second factor of a pending sign-in, and authenticator enrolment. */
export function mfaRoutes({
  mfa,
  auth,
  config,
}: {
  mfa: MfaService;
  auth: Pick<AuthService, 'knownDeviceToken'>;
  config: { secureCookies: boolean; defaultMaxStorageGB: number };
}): FastifyPluginAsyncZod {
  const secure = config.secureCookies;
  return async (app) => {
    app.post(
      '/mfa/verify',
      {
        config: mfaRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Finish a sign-in with the second factor',
          description: 'Needs the pending-login token from the login answer (mfaPending cookie or mfaToken).',
          body: mfaVerifyBodySchema,
          response: { 200: mfaVerifyResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const token = req.body.mfaToken ?? req.cookies[MFA_PENDING_COOKIE];
        const issued = await mfa.verify(req.body, token, requestMeta(req));
        setSessionCookies(reply, issued, secure);
        setKnownDeviceCookie(reply, auth.knownDeviceToken(issued.user.id), secure);
        clearMfaPendingCookie(reply, secure);
        return {
          message: 'Logged in successfully',
          authToken: issued.authToken,
          refreshToken: issued.refreshToken,
          user: toUserDto(issued.user, config.defaultMaxStorageGB),
        };
      },
    );

    app.post(
      '/mfa/resend',
      {
        config: mfaRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Email a new code for the pending sign-in',
          body: mfaResendBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) =>
        mfa.resend(req.body.email, req.body.mfaToken ?? req.cookies[MFA_PENDING_COOKIE], requestMeta(req)),
    );

    app.post(
      '/mfa/totp/setup',
      {
        config: mfaRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Start authenticator-app enrolment (needs a recent proof of identity)',
          response: { 200: totpSetupResponseSchema, ...errors },
        },
      },
      async (req) => mfa.setupTotp(requireUser(req), requestMeta(req)),
    );

    app.post(
      '/mfa/totp/confirm',
      {
        config: mfaRateLimit,
        schema: {
          tags: ['auth'],
          summary: 'Confirm the authenticator with a first code; returns recovery codes once',
          body: totpConfirmBodySchema,
          response: { 200: totpConfirmResponseSchema, ...errors },
        },
      },
      async (req) => {
        const { user, recoveryCodes } = await mfa.confirmTotp(
          requireUser(req),
          req.body.code,
          requestMeta(req),
        );
        return {
          message: 'Authenticator app enabled.',
          recoveryCodes,
          user: toUserDto(user, config.defaultMaxStorageGB),
        };
      },
    );

    app.delete(
      '/mfa/totp',
      {
        schema: {
          tags: ['auth'],
          summary: 'Remove the authenticator app and its recovery codes (needs a recent proof of identity)',
          response: { 200: userSchema, ...errors },
        },
      },
      async (req) =>
        toUserDto(await mfa.removeTotp(requireUser(req), requestMeta(req)), config.defaultMaxStorageGB),
    );
  };
}
