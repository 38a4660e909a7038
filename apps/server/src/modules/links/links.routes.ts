import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  createdLinkSchema,
  pendingLinkSchema,
  createLinkSchema,
  linkDownloadResponseSchema,
  linkListSchema,
  linkSummarySchema,
  linkViewerOpenResponseSchema,
  linkViewerOpenSchema,
  manifestRequestSchema,
  updateLinkSchema,
} from '@mi/contracts/links';
import { AppError } from '../../http/app-error';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { readAuthToken } from '../../http/session-cookies';
import { LINK_TOKEN_PREFIX } from './links-crypto';
import { type LinksService, WrongPasscode } from './links.service';

const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };
/** The public protocol is limited per address (guessing, scraping); the owner's routes are not. */
const publicLimit = { rateLimit: { max: 60, timeWindow: '1 minute' } };
/** Any origin may read a link: receivers are other people's apps (the IG expects CORS). */
const crossOrigin = (reply: FastifyReply) =>
  reply.header('access-control-allow-origin', '*').header('cache-control', 'no-store');

/** The owner's links: make, list, change, end (My Studies 'Share by link / QR', the Links page). */
export function linksRoutes(links: LinksService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/studies/links',
      {
        schema: {
          tags: ['links'],
          summary: 'Make a SMART Health Link for one or more of your studies',
          body: createLinkSchema,
          response: { 201: createdLinkSchema, 202: pendingLinkSchema, ...errors },
        },
      },
      async (req, reply) => {
        const created = await links.create(requireUser(req), req.body, requestMeta(req));
        // 202: a de-identified link waits for its copies (docs/links.md).
        return reply.status('pending' in created ? 202 : 201).send(created);
      },
    );
    app.get(
      '/studies/links',
      {
        schema: {
          tags: ['links'],
          summary: 'Your study links, newest first (optionally only those of one study)',
          querystring: z.object({ studyId: z.string().uuid().optional() }),
          response: { 200: linkListSchema, ...errors },
        },
      },
      async (req) => ({ links: await links.list(requireUser(req), req.query.studyId) }),
    );
    app.get(
      '/studies/links/:id',
      {
        schema: {
          tags: ['links'],
          summary: 'One of your links again, with its QR code',
          params: z.object({ id: z.string().max(64) }),
          response: { 200: createdLinkSchema, ...errors },
        },
      },
      async (req) => links.share(requireUser(req), req.params.id),
    );
    app.patch(
      '/studies/links/:id',
      {
        schema: {
          tags: ['links'],
          summary: 'Pause, resume or extend a link',
          params: z.object({ id: z.string().max(64) }),
          body: updateLinkSchema,
          response: { 200: linkSummarySchema, ...errors, 409: errorBodySchema },
        },
      },
      async (req) => links.update(requireUser(req), req.params.id, req.body, requestMeta(req)),
    );
    app.delete(
      '/studies/links/:id',
      {
        schema: {
          tags: ['links'],
          summary: 'Revoke a link: it stops opening at once, everywhere',
          params: z.object({ id: z.string().max(64) }),
          response: { 204: z.null(), ...errors },
        },
      },
      async (req, reply) => {
        await links.revoke(requireUser(req), req.params.id, requestMeta(req));
        return reply.status(204).send(null);
      },
    );
  };
}

/** The bearer credential a link's open handed its recipient. */
function linkToken(req: FastifyRequest): string {
  const found = readAuthToken(req);
  if (found?.from !== 'bearer' || !found.token.startsWith(LINK_TOKEN_PREFIX))
    throw new AppError('NOT_FOUND', 'This link has expired, was revoked or does not exist.');
  return found.token;
}

/**
 * The SMART Health Links protocol (docs/links.md): manifest (share links, POST), direct file
 * (check-in links, GET), `location` files, and what our link page asks with the link's credential
 * (open the images, download). No session: the CSRF guard lets these through (`crossOrigin`), since
 * they carry no cookie-borne authority.
 */
export function shlRoutes(
  links: LinksService,
  opts: { downloadRoute: DownloadRoute },
): FastifyPluginAsyncZod {
  return async (app) => {
    const cors = { ...publicLimit, crossOrigin: true };
    app.options('/shl/*', { config: { crossOrigin: true }, schema: { hide: true } }, async (_req, reply) =>
      reply
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', 'content-type, authorization')
        .header('access-control-max-age', '600')
        .status(204)
        .send(),
    );
    app.post(
      '/shl/m/:manifestId',
      {
        config: cors,
        schema: {
          tags: ['links'],
          summary: 'SMART Health Link manifest (share links): recipient and, for P links, the passcode',
          params: z.object({ manifestId: z.string().max(64) }),
          body: manifestRequestSchema,
          response: {
            200: z.object({
              files: z.array(
                z.object({
                  contentType: z.literal('application/fhir+json'),
                  embedded: z.string().optional(),
                  location: z.string().optional(),
                }),
              ),
            }),
            401: z.object({ remainingAttempts: z.number().int() }),
            400: errorBodySchema,
            404: errorBodySchema,
          },
        },
      },
      async (req, reply) => {
        crossOrigin(reply);
        try {
          return await links.manifest(req.params.manifestId, req.body, requestMeta(req));
        } catch (e) {
          if (e instanceof WrongPasscode)
            return reply.status(401).send({ remainingAttempts: e.remainingAttempts });
          throw e;
        }
      },
    );
    app.get(
      '/shl/m/:manifestId',
      {
        config: cors,
        schema: {
          tags: ['links'],
          summary: 'SMART Health Link direct file (check-in links, U flag): the encrypted file',
          params: z.object({ manifestId: z.string().max(64) }),
          querystring: z.object({ recipient: z.string().max(500).optional() }),
          response: { 200: z.string(), ...errors },
        },
      },
      async (req, reply) => {
        const jwe = await links.directFile(req.params.manifestId, req.query.recipient, requestMeta(req));
        return crossOrigin(reply).type('application/jose').send(jwe);
      },
    );
    app.get(
      '/shl/f/:token',
      {
        config: cors,
        schema: {
          tags: ['links'],
          summary: "A manifest's location URL: the encrypted file (lives at most an hour)",
          params: z.object({ token: z.string().max(64) }),
          response: { 200: z.string(), ...errors },
        },
      },
      async (req, reply) => {
        const jwe = await links.locationFile(req.params.token, requestMeta(req));
        return crossOrigin(reply).type('application/jose').send(jwe);
      },
    );
    app.post(
      '/shl/viewer',
      {
        config: cors,
        schema: {
          tags: ['links'],
          summary: "Open one of a link's studies in the viewer (Authorization: the link's credential)",
          body: linkViewerOpenSchema,
          response: { 200: linkViewerOpenResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        crossOrigin(reply);
        return links.openViewer(linkToken(req), req.body.studyId, requestMeta(req));
      },
    );
    app.post(
      '/shl/download',
      {
        config: cors,
        schema: {
          tags: ['links'],
          summary: "A download address for one of a link's studies, when its owner allowed downloads",
          body: linkViewerOpenSchema,
          response: { 200: linkDownloadResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        crossOrigin(reply);
        return links.downloadTicket(linkToken(req), req.body.studyId, requestMeta(req));
      },
    );
    app.get(
      '/shl/d/:ticket',
      {
        config: publicLimit,
        schema: {
          tags: ['links'],
          summary: "A link's study as a ZIP (resumable with Range), from a download address",
          params: z.object({ ticket: z.string().max(64) }),
        },
      },
      async (req, reply) => {
        const { principal, studyId } = await links.redeemDownload(req.params.ticket);
        return opts.downloadRoute(principal, studyId, req, reply);
      },
    );
  };
}

/** Streams a study's ZIP as a principal (modules/studies `downloadAs` and `sendStudyZip`). */
export type DownloadRoute = (
  principal: Awaited<ReturnType<LinksService['redeemDownload']>>['principal'],
  studyId: string,
  req: FastifyRequest,
  reply: FastifyReply,
) => Promise<FastifyReply>;
