import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  adminHelpArticleListSchema,
  adminHelpArticleResponseSchema,
  HELP_IMAGE_MAX_BYTES,
  HELP_IMAGE_TYPES,
  helpArticleInputSchema,
  helpArticleListSchema,
  helpArticlePatchSchema,
  helpArticleSchema,
  helpCategoriesSchema,
  helpCountsSchema,
  helpImageResponseSchema,
  helpListQuerySchema,
} from '@mi/contracts/help';
import { requestMeta, requireAdmin, requireUser } from '../../http/auth-hook';
import type { HelpService } from './help.service';

const idParams = z.object({ id: z.string().max(100) });
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };
const adminErrors = { 400: errorBodySchema, 404: errorBodySchema };
const messageSchema = z.object({ message: z.string() });
/** Checked before the body is read, so a non-admin gets the one 404 whatever they send. */
const adminOnly = { onRequest: async (req: FastifyRequest) => void requireAdmin(req) };

/** The help centre (/kb, signed-in users) and its authoring (/admin/kb, admins; 404 to others). */
export function helpRoutes(help: HelpService): FastifyPluginAsyncZod {
  return async (app) => {
    // Article images arrive as the raw bytes of the file (this plugin only).
    app.addContentTypeParser(
      [...HELP_IMAGE_TYPES],
      { parseAs: 'buffer', bodyLimit: HELP_IMAGE_MAX_BYTES },
      (_req, body, done) => done(null, body),
    );

    app.get(
      '/kb',
      {
        schema: {
          tags: ['help'],
          summary: 'Published help articles: a page of a category, the featured ones, or a search',
          querystring: helpListQuerySchema,
          response: { 200: helpArticleListSchema, ...errors },
        },
      },
      async (req) => {
        requireUser(req);
        return help.list(req.query);
      },
    );
    app.get(
      '/kb/categories',
      {
        schema: {
          tags: ['help'],
          summary: 'Categories that hold a published article',
          response: { 200: helpCategoriesSchema, ...errors },
        },
      },
      async (req) => {
        requireUser(req);
        return { data: await help.categories() };
      },
    );
    app.get(
      '/kb/counts',
      {
        schema: {
          tags: ['help'],
          summary: 'How many published articles are featured and in each category',
          response: { 200: helpCountsSchema, ...errors },
        },
      },
      async (req) => {
        requireUser(req);
        return help.counts();
      },
    );
    app.get(
      '/kb/images/:name',
      {
        schema: {
          tags: ['help'],
          summary: 'A picture of a help article',
          params: z.object({ name: z.string().max(100) }),
          response: { 200: z.any().describe('image/webp or image/png'), ...errors },
        },
      },
      async (req, reply) => {
        requireUser(req);
        const image = await help.image(req.params.name);
        // Names are never reused (a new upload gets a new one), so the browser may keep it a day.
        return reply
          .header('content-type', image.contentType)
          .header('content-length', image.size)
          .header('cache-control', 'private, max-age=86400')
          .send(image.body);
      },
    );
    app.get(
      '/kb/:id',
      {
        schema: {
          tags: ['help'],
          summary: "A published article; 'Article Not Found' otherwise",
          params: idParams,
          response: { 200: helpArticleSchema, ...errors },
        },
      },
      async (req) => {
        requireUser(req);
        return help.get(req.params.id);
      },
    );

    // ------------------------------------------------------------------ authoring

    app.get(
      '/admin/kb',
      {
        ...adminOnly,
        schema: {
          tags: ['admin'],
          summary: 'Every help article, drafts included',
          response: { 200: adminHelpArticleListSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        requireAdmin(req);
        return { data: await help.admin.list() };
      },
    );
    app.get(
      '/admin/kb/:id',
      {
        ...adminOnly,
        schema: {
          tags: ['admin'],
          summary: 'A help article to edit',
          params: idParams,
          response: { 200: adminHelpArticleResponseSchema.shape.data, 404: errorBodySchema },
        },
      },
      async (req) => {
        requireAdmin(req);
        return help.admin.get(req.params.id);
      },
    );
    app.post(
      '/admin/kb',
      {
        ...adminOnly,
        schema: {
          tags: ['admin'],
          summary: 'Write a help article (its HTML is sanitised)',
          body: helpArticleInputSchema,
          response: { 201: adminHelpArticleResponseSchema, ...adminErrors },
        },
      },
      async (req, reply) => {
        const data = await help.admin.create(requireAdmin(req), req.body, requestMeta(req));
        return reply.status(201).send({ message: 'Article created', data });
      },
    );
    app.put(
      '/admin/kb/:id',
      {
        ...adminOnly,
        schema: {
          tags: ['admin'],
          summary: 'Edit a help article (its HTML is sanitised)',
          params: idParams,
          body: helpArticleInputSchema,
          response: { 200: adminHelpArticleResponseSchema, ...adminErrors },
        },
      },
      async (req) => {
        const data = await help.admin.update(requireAdmin(req), req.params.id, req.body, requestMeta(req));
        return { message: 'Article saved', data };
      },
    );
    app.patch(
      '/admin/kb/:id',
      {
        ...adminOnly,
        schema: {
          tags: ['admin'],
          summary: 'Publish, unpublish, feature or unfeature a help article',
          params: idParams,
          body: helpArticlePatchSchema,
          response: { 200: adminHelpArticleResponseSchema, ...adminErrors },
        },
      },
      async (req) => {
        const data = await help.admin.patch(requireAdmin(req), req.params.id, req.body, requestMeta(req));
        return { message: 'Article updated', data };
      },
    );
    app.delete(
      '/admin/kb/:id',
      {
        ...adminOnly,
        schema: {
          tags: ['admin'],
          summary: 'Delete a help article',
          params: idParams,
          response: { 200: messageSchema, ...adminErrors },
        },
      },
      async (req) => {
        await help.admin.delete(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Article deleted' };
      },
    );
    app.post(
      '/admin/kb/images',
      {
        ...adminOnly,
        schema: {
          tags: ['admin'],
          summary: 'Upload a picture for an article (PNG, JPEG, WebP or GIF; stored as WebP)',
          response: {
            201: helpImageResponseSchema,
            ...adminErrors,
            413: errorBodySchema,
            415: errorBodySchema,
            422: errorBodySchema,
          },
        },
      },
      async (req, reply) => {
        const data = await help.admin.uploadImage(requireAdmin(req), req.body, requestMeta(req));
        return reply.status(201).send(data);
      },
    );
  };
}
