import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema, errorStatus } from '@mi/contracts/errors';
import {
  createdExportSchema,
  createExportSchema,
  exportListSchema,
  exportSchema,
} from '@mi/contracts/exports';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { parseRange } from './byte-range';
import type { ExportsService } from './exports.service';

const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };
const params = z.object({ id: z.string().max(64) });

/** 'Export my data': start an export, follow it, list one's own, download its files (with resume). */
export function exportsRoutes(exports: ExportsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/exports',
      {
        schema: {
          tags: ['exports'],
          summary:
            'Export your data: your studies (all by default) as DICOM media, reports, FHIR and history',
          body: createExportSchema,
          response: { 202: createdExportSchema, ...errors, 409: errorBodySchema },
        },
      },
      async (req, reply) => {
        const created = await exports.create(requireUser(req), req.body, requestMeta(req));
        return reply.status(202).send(created);
      },
    );
    app.get(
      '/exports',
      {
        schema: {
          tags: ['exports'],
          summary: 'Your exports, newest first',
          response: { 200: exportListSchema, ...errors },
        },
      },
      async (req) => ({ exports: await exports.list(requireUser(req)) }),
    );
    app.get(
      '/exports/:id',
      {
        schema: {
          tags: ['exports'],
          summary: 'One of your exports: its status, progress and files',
          params,
          response: { 200: exportSchema, ...errors },
        },
      },
      async (req) => exports.get(requireUser(req), req.params.id),
    );
    app.get(
      '/exports/:id/files/:name',
      {
        schema: {
          tags: ['exports'],
          summary: 'Download a file of a ready export (HTTP Range for resuming)',
          params: params.extend({ name: z.string().max(200) }),
        },
      },
      async (req, reply) => {
        const rangeHeader = typeof req.headers.range === 'string' ? req.headers.range : undefined;
        const ifRange = req.headers['if-range'];
        const file = await exports.download(
          requireUser(req),
          req.params.id,
          req.params.name,
          (length) => parseRange(rangeHeader, length),
          requestMeta(req),
        );
        // If-Range naming another version of the file: send it whole.
        const range = ifRange && ifRange !== file.etag ? null : file.range;
        reply
          .header('accept-ranges', 'bytes')
          .header('etag', file.etag)
          .header('cache-control', 'private, no-store');
        if (range === 'unsatisfiable')
          return reply
            .status(errorStatus.RANGE_NOT_SATISFIABLE)
            .header('content-range', `bytes */${file.length}`)
            .send({ error: 'The requested range is outside the file.', code: 'RANGE_NOT_SATISFIABLE' });
        reply
          .header('content-type', file.contentType)
          .header('content-disposition', `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`);
        if (range)
          return reply
            .status(206)
            .header('content-range', `bytes ${range.start}-${range.end}/${file.length}`)
            .header('content-length', range.end - range.start + 1)
            .send(await file.open());
        return reply
          .status(200)
          .header('content-length', file.length)
          .send(await file.open());
      },
    );
  };
}
