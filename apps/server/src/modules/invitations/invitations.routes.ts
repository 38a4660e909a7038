import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  invitationCheckQuerySchema,
  invitationCheckSchema,
  inviteLinkSchema,
  inviteProviderBodySchema,
  inviteUserBodySchema,
  messageSchema,
} from '@mi/contracts/sharing';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { InvitationsService } from './invitations.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  429: errorBodySchema,
} as const;

/**
 * Invitations: `POST /api/invite`, `POST /api/providers/invite`, the Share & Embed page's link
 * (`GET`/`POST /api/invitations/link`) and `GET /api/invitations/check?token=`.
 */
export function invitationsRoutes(invitations: InvitationsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/invite',
      {
        schema: {
          tags: ['invitations'],
          summary: 'Email someone an invitation to upload studies into your account',
          body: inviteUserBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => invitations.inviteUser(requireUser(req), req.body.email, requestMeta(req)),
    );

    app.post(
      '/providers/invite',
      {
        schema: {
          tags: ['invitations'],
          summary: 'Email a healthcare provider an invitation to apply for a professional account',
          body: inviteProviderBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => invitations.inviteProvider(requireUser(req), req.body.to, requestMeta(req)),
    );

    app.get(
      '/invitations/link',
      {
        schema: {
          tags: ['invitations'],
          summary: 'Your invite link (made on first ask): uploads through it go to your account',
          response: { 200: inviteLinkSchema, ...errors },
        },
      },
      async (req) => invitations.currentLink(requireUser(req), requestMeta(req)),
    );

    app.post(
      '/invitations/link',
      {
        schema: {
          tags: ['invitations'],
          summary: 'Revoke your invite link and issue a new one',
          response: { 200: inviteLinkSchema, ...errors },
        },
      },
      async (req) => invitations.renewLink(requireUser(req), requestMeta(req)),
    );

    app.get(
      '/invitations/check',
      {
        schema: {
          tags: ['invitations'],
          summary: 'Whether an invitation token is live, who issued it and the room left for uploads',
          querystring: invitationCheckQuerySchema,
          response: { 200: invitationCheckSchema, ...errors },
        },
      },
      async (req) => invitations.check(requireUser(req), req.query.token, requestMeta(req)),
    );
  };
}
