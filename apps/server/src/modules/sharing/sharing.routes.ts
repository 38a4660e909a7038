import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  accessReceiptsSchema,
  createShareBodySchema,
  createShareResponseSchema,
  linkShareBodySchema,
  messageSchema,
  shareListSchema,
  sharedStudyListSchema,
} from '@mi/contracts/sharing';
import { listPageQuerySchema } from '@mi/contracts/studies';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { ifNoneMatchOf, pageOf, sendSerializedList } from '../../http/serialized-list';
import type { SharingService } from './sharing.service';

const id = z.string().min(1).max(200);
const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  429: errorBodySchema,
};

/** Study shares (Share Study dialog, Shared Studies tab, providers page) and access receipts. */
export function sharingRoutes(sharing: SharingService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/users/shares',
      {
        schema: {
          tags: ['sharing'],
          summary: 'Share one of your studies with an email address or one of your providers',
          body: createShareBodySchema,
          response: { 201: createShareResponseSchema, 202: createShareResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const result = await sharing.share(requireUser(req), req.body, requestMeta(req));
        // 202: a de-identified share waits for its copy (docs/deidentification.md).
        return reply.status(result.pending ? 202 : 201).send(result);
      },
    );

    app.delete(
      '/users/shares/:shareId',
      {
        schema: {
          tags: ['sharing'],
          summary: 'Revoke a share: the recipient loses access at once',
          params: z.object({ shareId: id }),
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => sharing.revoke(requireUser(req), req.params.shareId, requestMeta(req)),
    );

    app.put(
      '/users/shares/:shareId',
      {
        schema: {
          tags: ['sharing'],
          summary: 'Give an emailed share to the signed-in account that received the email',
          params: z.object({ shareId: id }),
          body: linkShareBodySchema,
          response: { 200: messageSchema, ...errors },
        },
      },
      async (req) => sharing.link(requireUser(req), req.params.shareId, req.body, requestMeta(req)),
    );

    app.get(
      '/users/shares/study/:studyId',
      {
        schema: {
          tags: ['sharing'],
          summary: 'Who one of your studies is shared with',
          params: z.object({ studyId: id }),
          response: { 200: shareListSchema, ...errors },
        },
      },
      async (req) => sharing.listForStudy(requireUser(req), req.params.studyId, requestMeta(req)),
    );

    app.get(
      '/users/shares/provider/:providerId',
      {
        schema: {
          tags: ['sharing'],
          summary: 'The studies you share with one of your providers',
          params: z.object({ providerId: id }),
          response: { 200: shareListSchema, ...errors },
        },
      },
      async (req) => sharing.listForProvider(requireUser(req), req.params.providerId),
    );

    app.get(
      '/users/shares/targetUser/:userId',
      {
        schema: {
          tags: ['sharing'],
          summary: 'The studies shared with you (Shared Studies; all, or a page: offset, limit)',
          params: z.object({ userId: id }),
          querystring: listPageQuerySchema,
          response: { 200: sharedStudyListSchema, ...errors },
        },
      },
      async (req, reply) => {
        const page = pageOf(req.query);
        const list = await sharing.listSharedWithMe(
          requireUser(req),
          req.params.userId,
          requestMeta(req),
          ifNoneMatchOf(req),
          page,
        );
        return sendSerializedList(req, reply as unknown as FastifyReply, list, page);
      },
    );

    app.get(
      '/studies/:studyId/access',
      {
        schema: {
          tags: ['sharing'],
          summary: 'Access receipts: who can open your study now and what was done with it',
          params: z.object({ studyId: id }),
          response: { 200: accessReceiptsSchema, ...errors },
        },
      },
      async (req) => sharing.receipts(requireUser(req), req.params.studyId, requestMeta(req)),
    );
  };
}
