import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { AppError } from '../../http/app-error';
import {
  binary,
  errors,
  frameNumbers,
  notAcceptable,
  uid,
  type DicomwebApp,
  type DicomwebRouteContext,
} from './dicomweb-route-kit';
import { multipartBody, parseAccept } from './http-media';

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

const thumbnailQuery = z.object({
  accept: z.string().max(200).optional(),
  viewport: z.string().max(64).optional(),
});

/** Rendered thumbnails of a study, series, instance or frame (JPEG or PNG), drawn from the stored files. */
export function renderedRoutes(app: DicomwebApp, { dicomweb, caller }: DicomwebRouteContext): void {
  async function thumbnail(
    req: FastifyRequest,
    reply: FastifyReply,
    target: { study: string; series?: string; instance?: string; frame?: string },
  ) {
    const { principal, meta } = await caller(req);
    const query = req.query as z.infer<typeof thumbnailQuery>;
    const media = renderedMedia(req, query.accept);
    const { width, height } = viewportSize(query.viewport);
    const frame = target.frame === undefined ? undefined : frameNumbers(target.frame);
    if (frame && frame.length !== 1) throw new AppError('BAD_REQUEST', 'A thumbnail is of one frame');
    const row = await dicomweb.thumbnailSource(principal, meta, target.study, target.series, target.instance);
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
      thumbnail(req, reply, req.params as { study: string; series: string; instance: string; frame: string }),
  );
}
