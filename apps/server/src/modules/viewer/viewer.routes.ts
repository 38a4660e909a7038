import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { transferStudyResponseSchema, viewerUrlResponseSchema } from '@mi/contracts/viewer';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { ViewerService } from './viewer.service';

const id = z.string().min(1).max(200);
const errors = { 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema };

/** The viewer calls: `POST /api/studies/transfer/{id}` and `GET /api/dicom/viewer/{studyId}`. */
export function viewerRoutes(viewer: ViewerService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/studies/transfer/:id',
      {
        schema: {
          tags: ['viewer'],
          summary: 'Prepare a study for the viewer (queues a transfer-study job unless it is ready)',
          params: z.object({ id }),
          response: { 202: transferStudyResponseSchema, ...errors },
        },
      },
      async (req, reply) =>
        reply
          .status(202)
          .send(await viewer.requestTransfer(requireUser(req), req.params.id, requestMeta(req))),
    );
    app.get(
      '/dicom/viewer/:studyId',
      {
        schema: {
          tags: ['viewer'],
          summary: 'The viewer address for a study, with a short-lived credential for that study only',
          params: z.object({ studyId: id }),
          response: { 200: viewerUrlResponseSchema, ...errors },
        },
      },
      async (req) => viewer.viewerUrl(requireUser(req), req.params.studyId, requestMeta(req)),
    );
  };
}
