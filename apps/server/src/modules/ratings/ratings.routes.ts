import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  adminRatingListSchema,
  adminRatingSchema,
  hideCommentBodySchema,
  orderRatingSchema,
  providerRatingsSchema,
  ratingBodySchema,
} from '@mi/contracts/directory';
import { requestMeta, requireAdmin, requireUser } from '../../http/auth-hook';
import type { RatingsService } from './ratings.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
};
const idParams = z.object({ id: z.string().max(64) });
const orderParams = z.object({ orderId: z.string().max(64) });

/** Ratings of completed orders, a provider's ratings, and Admin → Ratings. */
export function ratingsRoutes(ratings: RatingsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/orders/:id/rating',
      {
        schema: {
          tags: ['orders'],
          summary:
            'Rate your completed order, 1 to 5 stars with an optional comment (changeable for 30 days)',
          params: idParams,
          body: ratingBodySchema,
          response: { 200: orderRatingSchema, ...errors },
        },
      },
      async (req) => ratings.rate(requireUser(req).user, req.params.id, req.body, requestMeta(req)),
    );
    app.get(
      '/providers/:id/ratings',
      {
        schema: {
          tags: ['providers'],
          summary: 'A provider’s rating, how many gave it, and the latest ratings with their comments',
          params: idParams,
          response: { 200: providerRatingsSchema, ...errors },
        },
      },
      async (req) => ratings.forProvider(requireUser(req).user.id, req.params.id),
    );
    app.get(
      '/admin/ratings',
      {
        schema: {
          tags: ['admin'],
          summary: 'Every rating, newest first',
          response: { 200: adminRatingListSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        requireAdmin(req);
        return ratings.admin.list();
      },
    );
    app.put(
      '/admin/ratings/:orderId/comment',
      {
        schema: {
          tags: ['admin'],
          summary: 'Hide a rating’s comment from patients, or show it again (the stars still count)',
          params: orderParams,
          body: hideCommentBodySchema,
          response: { 200: adminRatingSchema, ...errors },
        },
      },
      async (req) =>
        ratings.admin.hideComment(requireAdmin(req), req.params.orderId, req.body.hidden, requestMeta(req)),
    );
  };
}
