import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deidentifiedCopyBodySchema,
  deidentifiedCopyResponseSchema,
  deidentifyPreviewSchema,
  deidentifyQuerySchema,
} from '@mi/contracts/deidentify';
import { errorBodySchema } from '@mi/contracts/errors';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { DeidentifyService } from './deidentify.service';

const id = z.string().min(1).max(200);
const errors = { 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema };
const yes = (v: string | undefined) => v === '1' || v === 'true';

/** The preview and the copy of docs/deidentification.md; the owner only, 404 for anyone else. */
export function deidentifyRoutes(service: DeidentifyService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/studies/:studyId/deidentify/preview',
      {
        schema: {
          tags: ['studies'],
          summary:
            'What de-identification (DICOM PS3.15 Annex E) changes in one instance, and what it leaves out',
          params: z.object({ studyId: id }),
          querystring: deidentifyQuerySchema,
          response: { 200: deidentifyPreviewSchema, ...errors },
        },
      },
      async (req) =>
        service.preview(requireUser(req), req.params.studyId, requestMeta(req), {
          includePdfReports: yes(req.query.includePdfReports),
        }),
    );

    app.post(
      '/studies/:studyId/deidentified-copy',
      {
        schema: {
          tags: ['studies'],
          summary: 'Make a de-identified copy of the study as a new study in My Studies (a job)',
          params: z.object({ studyId: id }),
          body: deidentifiedCopyBodySchema,
          response: { 202: deidentifiedCopyResponseSchema, ...errors, 409: errorBodySchema },
        },
      },
      async (req, reply) => {
        const result = await service.requestCopy(requireUser(req), req.params.studyId, requestMeta(req), {
          includePdfReports: req.body?.includePdfReports ?? false,
        });
        return reply.status(202).send(result);
      },
    );
  };
}

/**
 * `GET /api/studies/download/{id}?deidentified=1` (the studies module's download route hands the
 * request here): the de-identified files as a ZIP streamed while they are made.
 */
export function deidentifiedDownload(service: DeidentifyService) {
  return async (req: FastifyRequest, reply: FastifyReply, studyId: string): Promise<FastifyReply> => {
    const query = (req.query ?? {}) as { includePdfReports?: string };
    const { study, stream } = await service.download(requireUser(req), studyId, requestMeta(req), {
      includePdfReports: yes(query.includePdfReports),
    });
    return reply
      .status(200)
      .header('content-type', 'application/zip')
      .header('cache-control', 'private, no-store')
      .header('content-disposition', `attachment; filename="study-${study.id}-deidentified.zip"`)
      .send(stream);
  };
}
