import { EVENTS, Server as TusServer } from '@tus/server';
import { NodeRequest, sendNodeResponse } from 'srvx/node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { BYTES_PER_GB } from '@mi/contracts/rules';
import { storageTokenSchema } from '@mi/contracts/studies';
import { AppError } from '../../http/app-error';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { AUTH_COOKIE } from '../../http/session-cookies';
import type { Services } from '../../services';
import { quotaOf } from '../studies/quota';
import { OBJECT_NAME, UPLOAD_PATH } from './upload-paths';
import { requestBodyStream } from './request-body';

/**
 * `GET /api/storage/token` and the tus 1.0 endpoint at `/api/uploads` (creation, termination,
 * HEAD/PATCH resume). tus replaces the spec's cloud-storage session protocol; the credential from
 * the token route lets its holder write only `{userId}/{uuid}/study.zip` objects of that user.
 */
export function uploadRoutes(services: Services): FastifyPluginAsyncZod {
  const { uploadArea, uploadTokens, config } = services;
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
      async (req) => {
        const auth = requireUser(req);
        const { token, expiresAt } = uploadTokens.issue(auth.user.id, auth.session.id);
        await services.audit({
          actorId: auth.user.id,
          actorRole: auth.user.role,
          action: 'upload.token',
          outcome: 'success',
          targetType: 'user',
          targetId: auth.user.id,
          requestId: req.id,
          ip: req.ip,
        });
        return {
          accessToken: token,
          bucket: uploadArea.bucket,
          expiresAt: expiresAt.toISOString(),
          uploadUrl: UPLOAD_PATH,
        };
      },
    );

    const tus = new TusServer({
      path: UPLOAD_PATH,
      datastore: uploadArea.datastore,
      relativeLocation: true,
      respectForwardedHeaders: config.trustProxy,
      allowedOrigins: [config.publicUrl],
      // The id is the object name itself (it contains slashes), so URLs are `/api/uploads/{objectName}`.
      namingFunction: (_req, metadata) => String(metadata?.objectName ?? ''),
      getFileIdFromRequest: (req) => idFromUrl(req.url),
      generateUrl: (_req, { path, id }) => `${path}/${id}`,
      // Limits are enforced before tus sees the request (see authorize); this keeps OPTIONS honest.
      maxSize: 5 * 1024 ** 4,
    });
    const { prescan } = services;
    if (prescan) {
      // The prescan sees the bytes as the upload area writes them; a terminated or re-created upload
      // starts from nothing.
      tus.on(EVENTS.POST_CREATE, (_req, upload) => prescan.forget(upload.id));
      tus.on(EVENTS.POST_TERMINATE, (_req, _res, id) => prescan.forget(id));
    }

    // tus reads the raw request body itself: no Fastify body parsing in this scope.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
      const handler = async (req: FastifyRequest, reply: FastifyReply) => {
        if (req.method !== 'OPTIONS') await authorize(req);
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

  /** Checks the credential and what it is used for; throws a clear 4xx before tus runs. */
  async function authorize(req: FastifyRequest): Promise<void> {
    const header = req.headers.authorization;
    const claims = uploadTokens.verify(header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined);
    if (!claims) {
      await deny(req, null, 'invalid_credential');
      throw new AppError(
        'UNAUTHORIZED',
        'The upload credential is missing, invalid or expired. Please start the upload again.',
      );
    }
    const userId = claims.userId;
    // Signing out (or any revocation of the session that asked for it) ends the credential too.
    if (claims.sessionId && !(await services.auth.isSessionUnrevoked(claims.sessionId))) {
      await deny(req, userId, 'session_ended');
      throw new AppError(
        'UNAUTHORIZED',
        'The upload credential is missing, invalid or expired. Please start the upload again.',
      );
    }
    // A browser signed in as someone else must not use this credential.
    const cookie = req.cookies[AUTH_COOKIE];
    if (cookie) {
      const session = await services.auth.authenticate(cookie, requestMeta(req));
      if (session && session.user.id !== userId) {
        await deny(req, userId, 'credential_of_another_user');
        throw new AppError('FORBIDDEN', 'This upload credential belongs to another user.');
      }
    }

    if (req.method === 'POST') {
      if (req.headers['upload-defer-length'] !== undefined) {
        throw new AppError('BAD_REQUEST', 'Upload-Length is required.');
      }
      const metadata = parseMetadata(String(req.headers['upload-metadata'] ?? ''));
      const objectName = metadata.objectName ?? '';
      const match = OBJECT_NAME.exec(objectName);
      if (!match) {
        throw new AppError(
          'BAD_REQUEST',
          'Upload-Metadata must name the object as {userId}/{uuid}/study.zip.',
        );
      }
      if (match[1] !== userId) {
        await deny(req, userId, 'foreign_prefix');
        throw new AppError('FORBIDDEN', 'You can only upload into your own storage folder.');
      }
      const length = Number(req.headers['upload-length']);
      if (!Number.isSafeInteger(length) || length < 0)
        throw new AppError('BAD_REQUEST', 'Upload-Length is required.');
      const user = await services.users.findById(userId);
      if (!user)
        throw new AppError(
          'UNAUTHORIZED',
          'The upload credential is missing, invalid or expired. Please start the upload again.',
        );
      const quota = quotaOf(user, config.defaultMaxStorageGB);
      if (length > quota.remainingBytes) {
        const maxGb = Math.round((quota.maxBytes / BYTES_PER_GB) * 100) / 100;
        throw new AppError(
          'PAYLOAD_TOO_LARGE',
          `Storage Limit Exceeded: Uploading these files would exceed your storage limit of ${maxGb} GB.`,
        );
      }
      if (await uploadArea.info(objectName))
        throw new AppError('CONFLICT', 'An upload with this name already exists.');
      return;
    }

    const id = idFromUrl(req.url);
    // Someone else's upload looks the same as a missing one.
    if (!id || !OBJECT_NAME.test(id) || !id.startsWith(`${userId}/`)) {
      await deny(req, userId, 'foreign_upload');
      throw new AppError('NOT_FOUND', 'Upload not found.');
    }
  }

  async function deny(req: FastifyRequest, userId: string | null, reason: string) {
    await services.audit({
      actorId: userId,
      action: 'upload.write',
      outcome: 'denied',
      requestId: req.id,
      ip: req.ip,
      details: { reason, method: req.method },
    });
  }
}

function idFromUrl(url: string): string | undefined {
  const pathname = url.startsWith('/') ? url.split('?')[0]! : new URL(url).pathname;
  if (!pathname.startsWith(`${UPLOAD_PATH}/`)) return undefined;
  try {
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
