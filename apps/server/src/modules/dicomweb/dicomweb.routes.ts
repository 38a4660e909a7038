import { promisify } from 'node:util';
import { gunzip as gunzipCb } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { AppError } from '../../http/app-error';
import { requestMeta } from '../../http/auth-hook';
import { DICOMWEB_ROOT, type DicomwebService, type Principal } from './dicomweb.service';
import { acceptsJson, acceptsMultipart, multipartBody, parseAccept, type Part } from './http-media';
import {
  bulkValue,
  DicomReadError,
  frameInfo,
  frameMediaType,
  frameTransferSyntax,
  readFrame,
  TS,
} from './part10';

const gunzip = promisify(gunzipCb);

const uid = z.string().min(1).max(128);
const dicomJsonList = z.array(z.record(z.string(), z.any())).describe('DICOM JSON (PS3.18 F.2)');
const binary = z.any().describe('multipart/related; one part per instance, frame or bulk data value');
const errors = { 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema, 406: errorBodySchema };
const query = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

export interface DicomwebRouteOptions {
  dicomweb: DicomwebService;
  /** Who is calling; throws 401 when nobody is. Each origin has its own credential. */
  principal(req: FastifyRequest): Promise<Principal>;
}

function notAcceptable(): AppError {
  return new AppError(
    'NOT_ACCEPTABLE',
    'None of the requested media types or transfer syntaxes is available for this data',
  );
}

function sendJson(req: FastifyRequest, reply: FastifyReply, body: unknown, warnings: string[] = []) {
  if (!acceptsJson(parseAccept(req.headers.accept))) throw notAcceptable();
  if (warnings.length)
    reply.header(
      'warning',
      `299 ${req.hostname}: The following attributes are not supported for matching: ${warnings.join(', ')}`,
    );
  return reply.type('application/dicom+json').send(body);
}

async function sendGzippedJson(req: FastifyRequest, reply: FastifyReply, gz: Buffer) {
  if (!acceptsJson(parseAccept(req.headers.accept))) throw notAcceptable();
  reply.type('application/dicom+json').header('vary', 'accept-encoding');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')))
    return reply.header('content-encoding', 'gzip').send(gz);
  return reply.send(await gunzip(gz));
}

/** Thumbnails are drawn this size unless the request names a viewport. */
const THUMBNAIL_VIEWPORT = 256;

/**
 * The image type of a rendered answer: from the `accept` query parameter, which takes precedence
 * (PS3.18 8.3.3.1), or from Accept. Clients that read bulk answers only as multipart (dicomweb-client,
 * which OHIF uses) say so with a multipart/related Accept header: they get the image as the one part.
 */
function renderedMedia(req: FastifyRequest, accept: string | undefined) {
  const header = parseAccept(req.headers.accept);
  const multipart = header.some((r) => r.type === 'multipart/related');
  for (const r of accept === undefined ? header : parseAccept(accept)) {
    const type = r.type === 'multipart/related' ? (r.partType ?? 'image/jpeg') : r.type;
    if (['image/jpeg', 'image/*', '*/*', 'application/octet-stream'].includes(type))
      return { format: 'jpeg' as const, type: 'image/jpeg', multipart };
    if (type === 'image/png') return { format: 'png' as const, type: 'image/png', multipart };
  }
  throw notAcceptable();
}

/** `viewport=width,height` (a source rectangle after them is ignored): the largest size to draw. */
function viewportSize(viewport: string | undefined): { width: number; height: number } {
  if (!viewport) return { width: THUMBNAIL_VIEWPORT, height: THUMBNAIL_VIEWPORT };
  const m = /^(\d{1,4}),(\d{1,4})(,.*)?$/.exec(viewport);
  const width = Number(m?.[1]);
  const height = Number(m?.[2]);
  if (!m || width < 1 || height < 1 || width > 2048 || height > 2048)
    throw new AppError('BAD_REQUEST', 'viewport must be width,height, each from 1 to 2048');
  return { width, height };
}

/** `1,3,5` → [1, 3, 5]; anything else is a 400. */
function frameNumbers(list: string): number[] {
  if (!/^\d{1,7}(,\d{1,7}){0,999}$/.test(list))
    throw new AppError('BAD_REQUEST', 'Frame numbers must be a comma-separated list of positive integers');
  const numbers = list.split(',').map(Number);
  if (numbers.some((n) => n < 1)) throw new AppError('BAD_REQUEST', 'Frame numbers start at 1');
  return numbers;
}

/**
 * DICOMweb (QIDO-RS, WADO-RS, WADO-URI) under `/dicomweb` on the origin that registers it. Every
 * route resolves the caller first and answers only for studies that caller may see.
 */
export function dicomwebRoutes(opts: DicomwebRouteOptions): FastifyPluginAsyncZod {
  const { dicomweb } = opts;
  return async (app) => {
    app.addHook('onSend', async (_req, reply) => {
      // Personal data: never kept by shared caches.
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-store');
    });

    const { forwarding } = dicomweb;

    /** External store: after our access check, the read is answered by the store itself. */
    async function forward(req: FastifyRequest, reply: FastifyReply) {
      const path = req.url.slice(req.url.indexOf(DICOMWEB_ROOT) + DICOMWEB_ROOT.length);
      const res = await dicomweb.forward(path, req.headers.accept);
      if (res.status >= 400) {
        throw res.status === 406
          ? notAcceptable()
          : res.status === 404
            ? new AppError('NOT_FOUND', 'Not found')
            : new AppError('UNAVAILABLE', 'The image store did not answer');
      }
      reply.status(res.status);
      if (res.contentType) reply.header('content-type', res.contentType);
      return reply.send(res.body);
    }

    // --- QIDO-RS ----------------------------------------------------------------------------
    app.get(
      '/studies',
      {
        schema: {
          tags: ['dicomweb'],
          summary: 'QIDO-RS: search studies',
          querystring: query,
          response: { 200: dicomJsonList, ...errors },
        },
      },
      async (req, reply) => {
        const p = await opts.principal(req);
        const { result, unsupported } = await dicomweb.searchStudies(p, req.query, requestMeta(req));
        return sendJson(req, reply, result, unsupported);
      },
    );
    app.get(
      '/series',
      {
        schema: {
          tags: ['dicomweb'],
          summary: 'QIDO-RS: search series',
          querystring: query,
          response: { 200: dicomJsonList, ...errors },
        },
      },
      async (req, reply) => {
        const p = await opts.principal(req);
        const { result, unsupported } = await dicomweb.searchSeries(p, req.query, requestMeta(req));
        return sendJson(req, reply, result, unsupported);
      },
    );
    app.get(
      '/instances',
      {
        schema: {
          tags: ['dicomweb'],
          summary: 'QIDO-RS: search instances',
          querystring: query,
          response: { 200: dicomJsonList, ...errors },
        },
      },
      async (req, reply) => {
        const p = await opts.principal(req);
        const { result, unsupported } = await dicomweb.searchInstances(p, req.query, requestMeta(req));
        return sendJson(req, reply, result, unsupported);
      },
    );
    app.get(
      '/studies/:study/series',
      {
        schema: {
          tags: ['dicomweb'],
          summary: "QIDO-RS: search a study's series",
          params: z.object({ study: uid }),
          querystring: query,
          response: { 200: dicomJsonList, ...errors },
        },
      },
      async (req, reply) => {
        const p = await opts.principal(req);
        const { result, unsupported } = await dicomweb.searchSeries(
          p,
          req.query,
          requestMeta(req),
          req.params.study,
        );
        return sendJson(req, reply, result, unsupported);
      },
    );
    app.get(
      '/studies/:study/instances',
      {
        schema: {
          tags: ['dicomweb'],
          summary: "QIDO-RS: search a study's instances",
          params: z.object({ study: uid }),
          querystring: query,
          response: { 200: dicomJsonList, ...errors },
        },
      },
      async (req, reply) => {
        const p = await opts.principal(req);
        const { result, unsupported } = await dicomweb.searchInstances(
          p,
          req.query,
          requestMeta(req),
          req.params.study,
        );
        return sendJson(req, reply, result, unsupported);
      },
    );
    app.get(
      '/studies/:study/series/:series/instances',
      {
        schema: {
          tags: ['dicomweb'],
          summary: "QIDO-RS: search a series' instances",
          params: z.object({ study: uid, series: uid }),
          querystring: query,
          response: { 200: dicomJsonList, ...errors },
        },
      },
      async (req, reply) => {
        const p = await opts.principal(req);
        const { result, unsupported } = await dicomweb.searchInstances(
          p,
          req.query,
          requestMeta(req),
          req.params.study,
          req.params.series,
        );
        return sendJson(req, reply, result, unsupported);
      },
    );

    // --- WADO-RS metadata ---------------------------------------------------------------------
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
      async (req, reply) => {
        const p = await opts.principal(req);
        if (forwarding) {
          await dicomweb.authorizeForward(p, requestMeta(req), req.params.study);
          return forward(req, reply);
        }
        return sendGzippedJson(
          req,
          reply,
          await dicomweb.studyMetadata(p, req.params.study, requestMeta(req)),
        );
      },
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
      async (req, reply) => {
        const p = await opts.principal(req);
        if (forwarding) {
          await dicomweb.authorizeForward(p, requestMeta(req), req.params.study, req.params.series);
          return forward(req, reply);
        }
        return sendGzippedJson(
          req,
          reply,
          await dicomweb.seriesMetadata(p, req.params.study, req.params.series, requestMeta(req)),
        );
      },
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
      async (req, reply) => {
        const p = await opts.principal(req);
        const { study, series, instance } = req.params;
        if (forwarding) {
          await dicomweb.authorizeForward(p, requestMeta(req), study, series, instance);
          return forward(req, reply);
        }
        return sendJson(
          req,
          reply,
          await dicomweb.instanceMetadata(p, study, series, instance, requestMeta(req)),
        );
      },
    );

    // --- WADO-RS instances ------------------------------------------------------------------
    async function retrieve(
      req: FastifyRequest,
      reply: FastifyReply,
      study: string,
      series?: string,
      instance?: string,
    ) {
      const p = await opts.principal(req);
      if (forwarding) {
        await dicomweb.authorizeForward(p, requestMeta(req), study, series, instance);
        return forward(req, reply);
      }
      const ranges = parseAccept(req.headers.accept);
      const { rows } = await dicomweb.instancesFor(p, requestMeta(req), study, series, instance);
      // Stored bytes only: every instance must be acceptable as it is stored (no transcoding).
      for (const r of rows) {
        if (!acceptsMultipart(ranges, ['application/dicom'], r.transferSyntaxUid ?? TS.implicitLE))
          throw notAcceptable();
      }
      const parts: Part[] = rows.map((r) => ({
        contentType: `application/dicom; transfer-syntax=${r.transferSyntaxUid ?? TS.implicitLE}`,
        contentLocation: `${DICOMWEB_ROOT}/studies/${study}/series/${r.seriesUid}/instances/${r.sopInstanceUid}`,
        body: () => dicomweb.open(r),
      }));
      const { stream, boundary } = multipartBody(parts);
      return reply.type(`multipart/related; type="application/dicom"; boundary=${boundary}`).send(stream);
    }
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
      async (req, reply) => retrieve(req, reply, req.params.study),
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
      async (req, reply) => retrieve(req, reply, req.params.study, req.params.series),
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
      async (req, reply) => retrieve(req, reply, req.params.study, req.params.series, req.params.instance),
    );

    // --- WADO-RS frames and bulk data --------------------------------------------------------
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
        const p = await opts.principal(req);
        const { study, series, instance } = req.params;
        if (forwarding) {
          await dicomweb.authorizeForward(p, requestMeta(req), study, series, instance);
          return forward(req, reply);
        }
        const { parsed } = await dicomweb.parsedInstance(
          p,
          requestMeta(req),
          study,
          series,
          instance,
          'frames',
        );
        const info = frameInfo(parsed);
        if (!info) throw new AppError('NOT_FOUND', 'The instance has no frames');
        if (numbers.some((n) => n > info.count))
          throw new AppError('NOT_FOUND', `The instance has ${info.count} frame(s)`);
        const ts = frameTransferSyntax(parsed);
        const mediaType = frameMediaType(ts);
        const ranges = parseAccept(req.headers.accept);
        if (!acceptsMultipart(ranges, [mediaType, 'application/octet-stream'], ts)) throw notAcceptable();
        // Name the part the way the client asked for it: some ask for octet-stream even for compressed frames.
        const asked = ranges.find((r) => r.type === 'multipart/related' && r.partType === mediaType);
        const partType = asked ? mediaType : 'application/octet-stream';
        let frames: Uint8Array[];
        try {
          frames = numbers.map((n) => readFrame(parsed, n - 1));
        } catch (err) {
          if (err instanceof DicomReadError)
            throw new AppError('UNPROCESSABLE', `This frame cannot be read: ${err.message}`);
          throw err;
        }
        const { stream, boundary } = multipartBody(
          frames.map((f) => ({ contentType: `${partType}; transfer-syntax=${ts}`, body: f })),
        );
        return reply.type(`multipart/related; type="${partType}"; boundary=${boundary}`).send(stream);
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
      async (req, reply) => {
        const p = await opts.principal(req);
        const { study, series, instance, tag } = req.params;
        if (forwarding) {
          await dicomweb.authorizeForward(p, requestMeta(req), study, series, instance);
          return forward(req, reply);
        }
        const { parsed } = await dicomweb.parsedInstance(
          p,
          requestMeta(req),
          study,
          series,
          instance,
          'bulkdata',
        );
        let value: Uint8Array | null;
        try {
          value = bulkValue(parsed, tag);
        } catch (err) {
          if (err instanceof DicomReadError)
            throw new AppError('UNPROCESSABLE', `This value cannot be read: ${err.message}`);
          throw err;
        }
        if (!value) throw new AppError('NOT_FOUND', 'The instance has no such value');
        const ranges = parseAccept(req.headers.accept);
        const ts = frameTransferSyntax(parsed);
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
      },
    );

    // --- Thumbnails (rendered) ---------------------------------------------------------------
    const thumbnailQuery = z.object({
      accept: z.string().max(200).optional(),
      viewport: z.string().max(64).optional(),
    });
    async function thumbnail(
      req: FastifyRequest,
      reply: FastifyReply,
      target: { study: string; series?: string; instance?: string; frame?: string },
    ) {
      const p = await opts.principal(req);
      const query = req.query as z.infer<typeof thumbnailQuery>;
      const media = renderedMedia(req, query.accept);
      const { width, height } = viewportSize(query.viewport);
      const frame = target.frame === undefined ? undefined : frameNumbers(target.frame);
      if (frame && frame.length !== 1) throw new AppError('BAD_REQUEST', 'A thumbnail is of one frame');
      const row = await dicomweb.thumbnailSource(
        p,
        requestMeta(req),
        target.study,
        target.series,
        target.instance,
      );
      const image = await dicomweb.renderFitted(
        row,
        frame ? frame[0]! - 1 : undefined,
        media.format,
        width,
        height,
      );
      if (!media.multipart) return reply.type(media.type).send(image);
      const { stream, boundary } = multipartBody([{ contentType: media.type, body: image }]);
      return reply.type(`multipart/related; type="${media.type}"; boundary=${boundary}`).send(stream);
    }
    const thumbnailSchema = (summary: string, params: z.ZodObject<z.ZodRawShape>) => ({
      schema: {
        tags: ['dicomweb'],
        summary,
        params,
        querystring: thumbnailQuery,
        response: { 200: binary, ...errors, 422: errorBodySchema },
      },
    });
    app.get(
      '/studies/:study/thumbnail',
      thumbnailSchema(
        'Thumbnail of a study (middle instance of its largest series), image/jpeg or image/png',
        z.object({ study: uid }),
      ),
      async (req, reply) => thumbnail(req, reply, req.params as { study: string }),
    );
    app.get(
      '/studies/:study/series/:series/thumbnail',
      thumbnailSchema('Thumbnail of a series (its middle instance)', z.object({ study: uid, series: uid })),
      async (req, reply) => thumbnail(req, reply, req.params as { study: string; series: string }),
    );
    app.get(
      '/studies/:study/series/:series/instances/:instance/thumbnail',
      thumbnailSchema(
        'Thumbnail of an instance (its middle frame)',
        z.object({ study: uid, series: uid, instance: uid }),
      ),
      async (req, reply) =>
        thumbnail(req, reply, req.params as { study: string; series: string; instance: string }),
    );
    app.get(
      '/studies/:study/series/:series/instances/:instance/frames/:frame/thumbnail',
      thumbnailSchema(
        'Thumbnail of one frame',
        z.object({ study: uid, series: uid, instance: uid, frame: z.string().min(1).max(8) }),
      ),
      async (req, reply) =>
        thumbnail(
          req,
          reply,
          req.params as { study: string; series: string; instance: string; frame: string },
        ),
    );

    // --- WADO-URI -----------------------------------------------------------------------------
    app.get(
      '/wado',
      {
        schema: {
          tags: ['dicomweb'],
          summary:
            'WADO-URI: one instance as stored (application/dicom) or one frame rendered (image/jpeg, the default, or image/png)',
          querystring: z.object({
            requestType: z.literal('WADO'),
            studyUID: uid,
            seriesUID: uid,
            objectUID: uid,
            contentType: z.string().max(200).optional(),
            transferSyntax: z.string().max(64).optional(),
            frameNumber: z.coerce.number().int().min(1).max(1_000_000).optional(),
          }),
          response: { 200: binary, ...errors },
        },
      },
      async (req, reply) => {
        const p = await opts.principal(req);
        const q = req.query;
        // PS3.18 WADO-URI: without contentType a single image is asked for as image/jpeg.
        const types = (q.contentType ?? 'image/jpeg').split(',').map((t) => t.trim().toLowerCase());
        const { rows } = await dicomweb.instancesFor(
          p,
          requestMeta(req),
          q.studyUID,
          q.seriesUID,
          q.objectUID,
        );
        const row = rows[0]!;
        const ts = row.transferSyntaxUid ?? TS.implicitLE;
        const image = types.find((t) => t === 'image/jpeg' || t === 'image/png');
        if (image && !types.includes('application/dicom')) {
          const rendered = await dicomweb.renderFrame(
            row,
            (q.frameNumber ?? 1) - 1,
            image === 'image/png' ? 'png' : 'jpeg',
          );
          return reply.type(image).send(rendered);
        }
        if (!types.some((t) => t === 'application/dicom' || t === '*/*')) throw notAcceptable();
        if (q.transferSyntax && q.transferSyntax !== '*' && q.transferSyntax !== ts) throw notAcceptable();
        return reply.type('application/dicom').send(await dicomweb.open(row));
      },
    );
  };
}
