import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  messageSchema,
  ownershipResponseSchema,
  requestOwnershipBodySchema,
  transferOwnershipBodySchema,
} from '@mi/contracts/sharing';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { OwnershipService } from './ownership.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  429: errorBodySchema,
};

/** Transfer Ownership (by email, or approving a request) and Request Ownership. */
export function ownershipRoutes(ownership: OwnershipService): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/studies/ownership/transfer',
      {
        schema: {
          tags: ['sharing'],
          summary: 'Move one of your studies to another account',
          body: transferOwnershipBodySchema,
          response: { 200: ownershipResponseSchema, ...errors },
        },
      },
      async (req) => ownership.transfer(requireUser(req), req.body, requestMeta(req)),
    );

    app.post(
      '/studies/ownership/request',
      {
        schema: {
          tags: ['sharing'],
          summary: 'Ask the owner of a study shared with you to transfer it to you',
          body: requestOwnershipBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => ownership.request(requireUser(req), req.body.studyId, requestMeta(req)),
    );
  };
}
