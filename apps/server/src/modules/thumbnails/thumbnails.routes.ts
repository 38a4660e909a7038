import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { PLACEHOLDER_SVG, type ThumbnailService } from './thumbnail.service';

/** `GET /api/studies/:id/thumbnail`: the study's picture for cards and rows (a placeholder when it has none). */
export function thumbnailRoutes(thumbnails: ThumbnailService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/studies/:id/thumbnail',
      {
        schema: {
          tags: ['studies'],
          summary: "The study's thumbnail (image/webp), or an SVG placeholder when no image can be drawn",
          params: z.object({ id: z.string().min(1).max(200) }),
          response: {
            200: z.any().describe('image/webp or image/svg+xml'),
            401: errorBodySchema,
            404: errorBodySchema,
          },
        },
      },
      async (req, reply) => {
        const { image, version } = await thumbnails.get(requireUser(req), req.params.id, requestMeta(req));
        // Private to the signed-in user; revalidated after a few minutes so a changed study shows its new picture.
        reply.header('cache-control', 'private, max-age=300').header('etag', `"${version}"`);
        if (!image)
          return reply.type('image/svg+xml').header('x-thumbnail', 'placeholder').send(PLACEHOLDER_SVG);
        return reply.type('image/webp').send(image);
      },
    );
  };
}
