import { promisify } from 'node:util';
import { gunzip as gunzipCb } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { AppError } from '../../http/app-error';
import { requestMeta } from '../../http/auth-hook';
import { DICOMWEB_ROOT, type DicomwebService, type Principal } from './dicomweb.service';
import { acceptsJson, parseAccept } from './http-media';

/** What the DICOMweb route plugins share (dicomweb.routes.ts, dicomweb-*.routes.ts). */

const gunzip = promisify(gunzipCb);

/** The Fastify instance a DICOMweb route plugin registers its routes on. */
export type DicomwebApp = Parameters<FastifyPluginAsyncZod>[0];

export const uid = z.string().min(1).max(128);
export const dicomJsonList = z.array(z.record(z.string(), z.any())).describe('DICOM JSON (PS3.18 F.2)');
export const binary = z.any().describe('multipart/related; one part per instance, frame or bulk data value');
export const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  404: errorBodySchema,
  406: errorBodySchema,
};
export const query = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

export function notAcceptable(): AppError {
  return new AppError(
    'NOT_ACCEPTABLE',
    'None of the requested media types or transfer syntaxes is available for this data',
  );
}

export function sendJson(req: FastifyRequest, reply: FastifyReply, body: unknown, warnings: string[] = []) {
  if (!acceptsJson(parseAccept(req.headers.accept))) throw notAcceptable();
  if (warnings.length)
    reply.header(
      'warning',
      `299 ${req.hostname}: The following attributes are not supported for matching: ${warnings.join(', ')}`,
    );
  return reply.type('application/dicom+json').send(body);
}

export async function sendGzippedJson(req: FastifyRequest, reply: FastifyReply, gz: Buffer) {
  if (!acceptsJson(parseAccept(req.headers.accept))) throw notAcceptable();
  reply.type('application/dicom+json').header('vary', 'accept-encoding');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')))
    return reply.header('content-encoding', 'gzip').send(gz);
  return reply.send(await gunzip(gz));
}

/** `1,3,5` → [1, 3, 5]; anything else is a 400. */
export function frameNumbers(list: string): number[] {
  if (!/^\d{1,7}(,\d{1,7}){0,999}$/.test(list))
    throw new AppError('BAD_REQUEST', 'Frame numbers must be a comma-separated list of positive integers');
  const numbers = list.split(',').map(Number);
  if (numbers.some((n) => n < 1)) throw new AppError('BAD_REQUEST', 'Frame numbers start at 1');
  return numbers;
}

/** The study, series or instance a WADO-RS read is about. */
export interface ReadTarget {
  study: string;
  series?: string;
  instance?: string;
}

/** The caller of a request that is answered here, with what its audit records need. */
export interface Caller {
  principal: Principal;
  meta: ReturnType<typeof requestMeta>;
}

/** Everything a DICOMweb route plugin is handed. */
export interface DicomwebRouteContext {
  dicomweb: DicomwebService;
  /** Who is calling; throws 401 when nobody is. */
  caller(req: FastifyRequest): Promise<Caller>;
  /**
   * A WADO-RS read: resolves the caller; with an external store, checks access to the target and
   * answers with the store's reply; otherwise answers with `local`.
   */
  readOrForward<T>(
    req: FastifyRequest,
    reply: FastifyReply,
    target: ReadTarget,
    local: (caller: Caller) => Promise<T>,
  ): Promise<T | FastifyReply>;
}

export function dicomwebRouteContext(
  dicomweb: DicomwebService,
  principal: (req: FastifyRequest) => Promise<Principal>,
): DicomwebRouteContext {
  const caller = async (req: FastifyRequest): Promise<Caller> => ({
    principal: await principal(req),
    meta: requestMeta(req),
  });

  /** External store: after our access check, the read is answered by the store itself. */
  async function forward(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
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

  return {
    dicomweb,
    caller,
    async readOrForward(req, reply, target, local) {
      const c = await caller(req);
      if (!dicomweb.forwarding) return local(c);
      await dicomweb.authorizeForward(c.principal, c.meta, target.study, target.series, target.instance);
      return forward(req, reply);
    },
  };
}
