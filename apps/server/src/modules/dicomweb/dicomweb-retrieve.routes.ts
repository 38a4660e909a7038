import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { storedTransferSyntax } from '../../dicom/transfer-syntax';
import { DICOMWEB_ROOT } from './dicomweb.service';
import {
  binary,
  dicomJsonList,
  errors,
  frameNumbers,
  notAcceptable,
  sendGzippedJson,
  sendJson,
  uid,
  type DicomwebApp,
  type DicomwebRouteContext,
  type ReadTarget,
} from './dicomweb-route-kit';
import { acceptsMultipart, multipartBody, parseAccept, type Part } from './http-media';

/**
 * WADO-RS: metadata, instances as stored, frames and bulk data. With an external store each read
 * is answered by the store once our access check has passed.
 */
export function retrieveRoutes(app: DicomwebApp, ctx: DicomwebRouteContext): void {
  const { dicomweb, readOrForward } = ctx;

  // --- metadata -------------------------------------------------------------------------------
  app.get(
    '/studies/:study/metadata',
    {
      schema: {
        tags: ['dicomweb'],
        summary: 'WADO-RS: study metadata',
        params: z.object({ study: uid }),
        response: { 200: binary, ...errors },
      },
    },
    async (req, reply) =>
      readOrForward(req, reply, req.params, async ({ principal, meta }) =>
        sendGzippedJson(req, reply, await dicomweb.studyMetadata(principal, req.params.study, meta)),
      ),
  );
  app.get(
    '/studies/:study/series/:series/metadata',
    {
      schema: {
        tags: ['dicomweb'],
        summary: 'WADO-RS: series metadata (computed once, cached)',
        params: z.object({ study: uid, series: uid }),
        response: { 200: binary, ...errors },
      },
    },
    async (req, reply) =>
      readOrForward(req, reply, req.params, async ({ principal, meta }) =>
        sendGzippedJson(
          req,
          reply,
          await dicomweb.seriesMetadata(principal, req.params.study, req.params.series, meta),
        ),
      ),
  );
  app.get(
    '/studies/:study/series/:series/instances/:instance/metadata',
    {
      schema: {
        tags: ['dicomweb'],
        summary: 'WADO-RS: instance metadata',
        params: z.object({ study: uid, series: uid, instance: uid }),
        response: { 200: dicomJsonList, ...errors },
      },
    },
    async (req, reply) =>
      readOrForward(req, reply, req.params, async ({ principal, meta }) => {
        const { study, series, instance } = req.params;
        return sendJson(
          req,
          reply,
          await dicomweb.instanceMetadata(principal, study, series, instance, meta),
        );
      }),
  );

  // --- instances, as stored ---------------------------------------------------------------------
  const retrieve = (req: FastifyRequest, reply: FastifyReply, target: ReadTarget) =>
    readOrForward(req, reply, target, async ({ principal, meta }) => {
      const ranges = parseAccept(req.headers.accept);
      const { rows } = await dicomweb.instancesFor(
        principal,
        meta,
        target.study,
        target.series,
        target.instance,
      );
      // Stored bytes only: every instance must be acceptable as it is stored (no transcoding).
      for (const r of rows) {
        if (!acceptsMultipart(ranges, ['application/dicom'], storedTransferSyntax(r.transferSyntaxUid)))
          throw notAcceptable();
      }
      const parts: Part[] = rows.map((r) => ({
        contentType: `application/dicom; transfer-syntax=${storedTransferSyntax(r.transferSyntaxUid)}`,
        contentLocation: `${DICOMWEB_ROOT}/studies/${target.study}/series/${r.seriesUid}/instances/${r.sopInstanceUid}`,
        body: () => dicomweb.open(r),
      }));
      const { stream, boundary } = multipartBody(parts);
      return reply.type(`multipart/related; type="application/dicom"; boundary=${boundary}`).send(stream);
    });
  app.get(
    '/studies/:study',
    {
      schema: {
        tags: ['dicomweb'],
        summary: 'WADO-RS: every instance of a study, as stored',
        params: z.object({ study: uid }),
        response: { 200: binary, ...errors },
      },
    },
    async (req, reply) => retrieve(req, reply, req.params),
  );
  app.get(
    '/studies/:study/series/:series',
    {
      schema: {
        tags: ['dicomweb'],
        summary: 'WADO-RS: every instance of a series, as stored',
        params: z.object({ study: uid, series: uid }),
        response: { 200: binary, ...errors },
      },
    },
    async (req, reply) => retrieve(req, reply, req.params),
  );
  app.get(
    '/studies/:study/series/:series/instances/:instance',
    {
      schema: {
        tags: ['dicomweb'],
        summary: 'WADO-RS: one instance, as stored',
        params: z.object({ study: uid, series: uid, instance: uid }),
        response: { 200: binary, ...errors },
      },
    },
    async (req, reply) => retrieve(req, reply, req.params),
  );

  // --- frames and bulk data -----------------------------------------------------------------------
  app.get(
    '/studies/:study/series/:series/instances/:instance/frames/:frames',
    {
      schema: {
        tags: ['dicomweb'],
        summary: 'WADO-RS: frames in the stored transfer syntax (native data little endian)',
        params: z.object({ study: uid, series: uid, instance: uid, frames: z.string().min(1).max(8000) }),
        response: { 200: binary, ...errors, 422: errorBodySchema },
      },
    },
    async (req, reply) => {
      const numbers = frameNumbers(req.params.frames);
      return readOrForward(req, reply, req.params, async ({ principal, meta }) => {
        const { study, series, instance } = req.params;
        const frames = await dicomweb.frames(principal, meta, study, series, instance, numbers);
        const ts = frames.transferSyntax;
        const ranges = parseAccept(req.headers.accept);
        if (!acceptsMultipart(ranges, [frames.mediaType, 'application/octet-stream'], ts))
          throw notAcceptable();
        // Name the part the way the client asked for it: some ask for octet-stream even for compressed frames.
        const asked = ranges.find((r) => r.type === 'multipart/related' && r.partType === frames.mediaType);
        const partType = asked ? frames.mediaType : 'application/octet-stream';
        const { stream, boundary } = multipartBody(
          frames.read().map((f) => ({ contentType: `${partType}; transfer-syntax=${ts}`, body: f })),
        );
        return reply.type(`multipart/related; type="${partType}"; boundary=${boundary}`).send(stream);
      });
    },
  );
  app.get(
    '/studies/:study/series/:series/instances/:instance/bulkdata/:tag',
    {
      schema: {
        tags: ['dicomweb'],
        summary: 'WADO-RS: one bulk data value (the BulkDataURI of the metadata)',
        params: z.object({
          study: uid,
          series: uid,
          instance: uid,
          tag: z.string().regex(/^[0-9A-Fa-f]{8}$/, 'must be a tag such as 7FE00010'),
        }),
        response: { 200: binary, ...errors, 422: errorBodySchema },
      },
    },
    async (req, reply) =>
      readOrForward(req, reply, req.params, async ({ principal, meta }) => {
        const { study, series, instance, tag } = req.params;
        const { value, transferSyntax: ts } = await dicomweb.bulkData(
          principal,
          meta,
          study,
          series,
          instance,
          tag,
        );
        const ranges = parseAccept(req.headers.accept);
        if (
          !acceptsMultipart(ranges, ['application/octet-stream'], ts) &&
          !ranges.some((r) => r.type === 'application/octet-stream')
        )
          throw notAcceptable();
        if (
          ranges.some((r) => r.type === 'application/octet-stream') &&
          !ranges.some((r) => r.type.startsWith('multipart/'))
        ) {
          return reply.type('application/octet-stream').send(Buffer.from(value));
        }
        const { stream, boundary } = multipartBody([
          { contentType: `application/octet-stream; transfer-syntax=${ts}`, body: value },
        ]);
        return reply
          .type(`multipart/related; type="application/octet-stream"; boundary=${boundary}`)
          .send(stream);
      }),
  );
}
