import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema, errorStatus } from '@mi/contracts/errors';
import {
  analysisStudySchema,
  listPageQuerySchema,
  processStudyBodySchema,
  processStudyResponseSchema,
  studyListSchema,
  studyResponseSchema,
} from '@mi/contracts/studies';
import { AppError } from '../../http/app-error';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { ifNoneMatchOf, pageOf, sendSerializedList } from '../../http/serialized-list';
import { parseRange } from './download-zip';
import { toAnalysisStudyDto, toStudyDto, type StudiesService } from './studies.service';

const id = z.string().min(1).max(200);
const errors = { 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema };

/**
 * The studies calls of My Studies and the analysis page. Every study-derived route goes through
 * `requireStudyAccess`.
 */
export function studiesRoutes(
  studies: StudiesService,
  opts: {
    /** `?deidentified=1`: the de-identified files instead (modules/deidentify, handed over by http/app.ts). */
    deidentifiedDownload?: (
      req: FastifyRequest,
      reply: FastifyReply,
      studyId: string,
    ) => Promise<FastifyReply>;
  } = {},
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/studies/process',
      {
        schema: {
          tags: ['studies'],
          summary: 'Queue processing of a finished upload',
          body: processStudyBodySchema,
          response: { 202: processStudyResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const auth = requireUser(req);
        const result = await studies.requestProcessing(auth, req.body, requestMeta(req));
        return reply.status(202).send(result);
      },
    );

    app.get(
      '/studies/user/:userId',
      {
        schema: {
          tags: ['studies'],
          summary: "The user's processed studies, newest upload first (all, or a page: offset, limit)",
          params: z.object({ userId: id }),
          querystring: listPageQuerySchema,
          response: { 200: studyListSchema, ...errors },
        },
      },
      async (req, reply) => {
        const page = pageOf(req.query);
        const list = await studies.listSerialized(
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
      '/studies/study/:id',
      {
        schema: {
          tags: ['studies'],
          summary: 'One study',
          params: z.object({ id }),
          response: { 200: studyResponseSchema, ...errors },
        },
      },
      async (req) => ({
        data: toStudyDto(await studies.get(requireUser(req), req.params.id, requestMeta(req))),
      }),
    );

    app.get(
      '/studies/download/:studyId',
      {
        schema: {
          tags: ['studies'],
          summary:
            'The study as a ZIP of its original files (HTTP ranges supported), or with deidentified=1 of its de-identified files',
          params: z.object({ studyId: id }),
          querystring: z.object({
            deidentified: z.enum(['0', '1', 'true', 'false']).optional(),
            includePdfReports: z.enum(['0', '1', 'true', 'false']).optional(),
          }),
          response: { 200: z.any(), 206: z.any(), 409: errorBodySchema, 416: errorBodySchema, ...errors },
        },
      },
      async (req, reply) => {
        if (req.query.deidentified === '1' || req.query.deidentified === 'true') {
          // Never the original files for a request that asked for them de-identified.
          if (!opts.deidentifiedDownload) throw new AppError('NOT_FOUND', 'Not found');
          return opts.deidentifiedDownload(req, reply, req.params.studyId);
        }
        return sendStudyZip(req, reply, (range) =>
          studies.download(requireUser(req), req.params.studyId, requestMeta(req), range),
        );
      },
    );

    app.get(
      '/studies/:studyId',
      {
        schema: {
          tags: ['studies'],
          summary: 'The study as the analysis page shows it',
          params: z.object({ studyId: id }),
          response: { 200: analysisStudySchema, ...errors },
        },
      },
      async (req) =>
        toAnalysisStudyDto(await studies.get(requireUser(req), req.params.studyId, requestMeta(req))),
    );

    app.delete(
      '/studies/:userId/:studyId',
      {
        schema: {
          tags: ['studies'],
          summary: 'Delete a study, its files and free its storage',
          params: z.object({ userId: id, studyId: id }),
          response: { 200: z.object({ message: z.string() }), ...errors },
        },
      },
      async (req) => {
        await studies.delete(requireUser(req), req.params.userId, req.params.studyId, requestMeta(req));
        return { message: 'The study has been successfully deleted.' };
      },
    );
  };
}

/**
 * Answers with a study's ZIP, whole or one range (resume), after `open` checked who may have it
 * and audited the download (StudiesService `download` / `downloadAs`).
 */
export async function sendStudyZip(
  req: FastifyRequest,
  reply: FastifyReply,
  open: (range: string | null) => ReturnType<StudiesService['downloadAs']>,
): Promise<FastifyReply> {
  const rangeHeader = typeof req.headers.range === 'string' ? req.headers.range : null;
  const { study, layout, stream } = await open(rangeHeader);
  const ifRange = req.headers['if-range'];
  const range =
    ifRange && ifRange !== layout.etag ? null : parseRange(rangeHeader ?? undefined, layout.length);
  reply
    .header('accept-ranges', 'bytes')
    .header('etag', layout.etag)
    .header('cache-control', 'private, no-store');
  if (range === 'unsatisfiable') {
    return reply
      .status(errorStatus.RANGE_NOT_SATISFIABLE)
      .header('content-range', `bytes */${layout.length}`)
      .send({ error: 'The requested range is outside the archive.', code: 'RANGE_NOT_SATISFIABLE' });
  }
  reply
    .header('content-type', 'application/zip')
    .header('content-disposition', `attachment; filename="study-${study.id}.zip"`);
  if (range) {
    return reply
      .status(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${layout.length}`)
      .header('content-length', range.end - range.start + 1)
      .send(stream(range.start, range.end));
  }
  return reply.status(200).header('content-length', layout.length).send(stream());
}
