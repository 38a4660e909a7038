import { EVENTS, Server as TusServer } from '@tus/server';
import { NodeRequest, sendNodeResponse } from 'srvx/node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { storageTokenSchema } from '@mi/contracts/studies';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { AUTH_COOKIE } from '../../http/session-cookies';
import { UPLOAD_PATH } from './upload-paths';
import { requestBodyStream } from './request-body';
import type { UploadRequest, UploadsService } from './uploads.service';

/**
 * `GET /api/storage/token` and the tus 1.0 endpoint at `/api/uploads` (creation, termination,
 * HEAD/PATCH resume). tus replaces the spec's cloud-storage session protocol; the credential from
 * the token route lets its holder write only `{userId}/{uuid}/study.zip` objects of that user.
 */
export function uploadRoutes({
  uploads,
  config,
}: {
  uploads: UploadsService;
  config: { trustProxy: boolean; publicUrl: string };
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/storage/token',
      {
        schema: {
          tags: ['studies'],
          summary: 'A short-lived credential for uploading a study archive',
          response: { 200: storageTokenSchema, 401: errorBodySchema },
        },
      },
      async (req) => uploads.issueToken(requireUser(req), requestMeta(req)),
    );

    const tus = new TusServer({
      path: UPLOAD_PATH,
      datastore: uploads.datastore,
      locker: uploads.locker,
      relativeLocation: true,
      respectForwardedHeaders: config.trustProxy,
      allowedOrigins: [config.publicUrl],
      // The id is the object name itself (it contains slashes), so URLs are `/api/uploads/{objectName}`.
      namingFunction: (_req, metadata) => String(metadata?.objectName ?? ''),
      getFileIdFromRequest: (req) => idFromUrl(req.url),
      generateUrl: (_req, { path, id }) => `${path}/${id}`,
      // Limits are enforced before tus sees the request (see UploadsService.authorize); this keeps OPTIONS honest.
      maxSize: 5 * 1024 ** 4,
    });
    if (uploads.prescans) {
      // The prescan sees the bytes as the upload area writes them; a terminated or re-created upload
      // starts from nothing, and a finished one has its archive listed at once.
      tus.on(EVENTS.POST_CREATE, (_req, upload) => uploads.restarted(upload.id));
      tus.on(EVENTS.POST_TERMINATE, (_req, _res, id) => uploads.restarted(id));
      tus.on(EVENTS.POST_FINISH, (_req, _res, upload) => uploads.finished(upload.id, upload.size));
    }

    // tus reads the raw request body itself: no Fastify body parsing in this scope.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
      const handler = async (req: FastifyRequest, reply: FastifyReply) => {
        if (req.method !== 'OPTIONS') await uploads.authorize(uploadRequest(req), requestMeta(req));
        reply.hijack();
        try {
          // tus.handle(req, res) with the body handed over without a copy per chunk (see requestBodyStream).
          const request = new NodeRequest({ req: req.raw, res: reply.raw });
          if (req.method === 'PATCH' || req.method === 'POST')
            Object.defineProperty(request, 'body', { value: requestBodyStream(req.raw) });
          await sendNodeResponse(reply.raw, await tus.handleWeb(request));
        } catch (err) {
          req.log.error({ err }, 'upload request failed');
          if (!reply.raw.headersSent) reply.raw.writeHead(500).end();
          else reply.raw.destroy();
        }
      };
      const schema = { hide: true } as const;
      scope.route({ method: ['POST', 'OPTIONS'], url: '/uploads', schema, handler });
      scope.route({ method: ['HEAD', 'PATCH', 'DELETE', 'OPTIONS'], url: '/uploads/*', schema, handler });
    });
  };
}

/** What the upload rules need of a tus request. */
function uploadRequest(req: FastifyRequest): UploadRequest {
  const header = req.headers.authorization;
  const common = {
    credential: header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined,
    sessionToken: req.cookies[AUTH_COOKIE],
  };
  if (req.method === 'POST')
    return {
      ...common,
      method: 'POST',
      deferLength: req.headers['upload-defer-length'] !== undefined,
      metadata: parseMetadata(String(req.headers['upload-metadata'] ?? '')),
      length: Number(req.headers['upload-length']),
    };
  return { ...common, method: req.method, uploadId: idFromUrl(req.url) };
}

function idFromUrl(url: string): string | undefined {
  try {
    const pathname = url.startsWith('/') ? url.split('?')[0]! : new URL(url).pathname;
    if (!pathname.startsWith(`${UPLOAD_PATH}/`)) return undefined;
    return decodeURIComponent(pathname.slice(UPLOAD_PATH.length + 1));
  } catch {
    return undefined;
  }
}

/** tus Upload-Metadata: comma-separated `key base64(value)` pairs. */
function parseMetadata(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of header.split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (!key) continue;
    out[key] = value ? Buffer.from(value, 'base64').toString('utf8') : '';
  }
  return out;
}
