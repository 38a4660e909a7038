import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../http/app-error';
import { installErrorHandler } from '../../http/error-handler';
import { installCsrfGuard } from '../../http/csrf-guard';
import { installInputGuard } from '../../http/input-guard';
import { SERVER_TIMEOUTS } from '../../http/server-timeouts';
import { loggerOptions } from '../../logger';
import type { Config } from '../../config';
import type { AuditRecorder } from '../audit';
import { dicomwebRoutes } from '../dicomweb';
import { DICOMWEB_ROOT, type DicomwebService, type Principal } from '../dicomweb';
import { bindingCookieName, type ViewerGrants } from './viewer-grants';

/** What the viewer origin serves from (main.ts passes src/services.ts `Services`; tests too). */
export interface ViewerAppServices {
  config: Pick<Config, 'logLevel' | 'trustProxy' | 'secureCookies' | 'viewerPublicUrl'>;
  audit: AuditRecorder;
  dicomweb: DicomwebService;
  viewerGrants: Pick<ViewerGrants, 'verify' | 'isBoundTo' | 'bind'>;
  /** Study links (modules/links): a link credential by id, as its principal, while it is live. */
  links?: { principalForCredential(credentialId: string): Promise<Principal | null> };
}

export interface ViewerAppOptions {
  /** The built OHIF app (apps/viewer/ohif); without it only DICOMweb is served. */
  ohifDir?: string;
  /** Our app-config.js, served in place of OHIF's sample one. */
  appConfigFile?: string;
  logRequests?: boolean;
}

/** Hashes of the inline scripts of OHIF's index.html, so the CSP can allow exactly those. */
function inlineScriptHashes(indexHtml: string): string[] {
  const hashes: string[] = [];
  for (const m of indexHtml.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
    hashes.push(`'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
  }
  return hashes;
}

const etagOf = (body: string | Buffer) =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
/** Whether the browser already holds this version (revalidation of a `no-cache` response). */
const fresh = (req: FastifyRequest, etag: string) =>
  (req.headers['if-none-match'] ?? '').split(/\s*,\s*/).some((t) => t.replace(/^W\//, '') === etag);

/**
 * The viewer's own origin (VIEWER_PORT): OHIF's built app with our app-config.js, and DICOMweb
 * answered only to viewer credentials (never to the app's session cookie, which is not sent here).
 */
export async function buildViewerApp(
  services: ViewerAppServices,
  opts: ViewerAppOptions = {},
): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: opts.logRequests === false ? false : loggerOptions(config.logLevel),
    genReqId: () => randomUUID(),
    trustProxy: config.trustProxy,
    ...SERVER_TIMEOUTS,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  installInputGuard(app);
  installCsrfGuard(app, [config.viewerPublicUrl]);

  const ohif = opts.ohifDir && existsSync(path.join(opts.ohifDir, 'index.html')) ? opts.ohifDir : undefined;
  const indexHtml = ohif ? readFileSync(path.join(ohif, 'index.html'), 'utf8') : '';
  await app.register(fastifyHelmet, viewerSecurityHeaders(indexHtml, config));
  await app.register(fastifyCookie);
  const grants = viewerCredentials(services);
  registerBinding(app, services, grants);
  await app.register(dicomwebRoutes({ dicomweb: services.dicomweb, principal: grants.principal }), {
    prefix: DICOMWEB_ROOT,
  });
  if (ohif) await serveOhif(app, ohif, indexHtml, opts.appConfigFile);
  return app;
}

/** The viewer origin's headers: a CSP that allows OHIF's own inline scripts and nothing of other hosts. */
function viewerSecurityHeaders(indexHtml: string, config: ViewerAppServices['config']) {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // OHIF's image codecs are WebAssembly; its bundle also compiles a few functions at run time.
        scriptSrc: ["'self'", "'wasm-unsafe-eval'", "'unsafe-eval'", ...inlineScriptHashes(indexHtml)],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        // Nothing but this origin: the viewer never talks to other hosts.
        connectSrc: ["'self'", 'data:', 'blob:'],
        workerSrc: ["'self'", 'blob:'],
        mediaSrc: ["'self'", 'blob:'],
        frameSrc: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
      },
    },
    hsts: config.secureCookies ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    referrerPolicy: { policy: 'no-referrer' as const },
  };
}

const expired = () =>
  new AppError(
    'UNAUTHORIZED',
    'The viewer link has expired, was withdrawn or was opened elsewhere. Open the study again from My Studies.',
  );

/** A request's viewer credential (Bearer), and the principal it reads as once bound to this browser. */
function viewerCredentials(services: ViewerAppServices) {
  const grantOf = async (req: FastifyRequest) => {
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
    const grant = token ? await services.viewerGrants.verify(token) : null;
    if (!grant) throw expired();
    // A link recipient's grant ends with the link (revoked, paused, expired): the viewer says so.
    if (grant.linkCredentialId && !(await services.links?.principalForCredential(grant.linkCredentialId)))
      throw expired();
    return grant;
  };
  const principal = async (req: FastifyRequest): Promise<Principal> => {
    const grant = await grantOf(req);
    if (!services.viewerGrants.isBoundTo(grant, req.cookies[bindingCookieName(grant.grantId)]))
      throw expired();
    if (grant.linkCredentialId) {
      // A link recipient's viewer reads as the link: ending the link ends it on the next request.
      const link = await services.links?.principalForCredential(grant.linkCredentialId);
      if (!link) throw expired();
      return { ...link, studyId: grant.studyId };
    }
    return { userId: grant.userId, role: grant.role, studyId: grant.studyId, via: 'grant' };
  };
  return { grantOf, principal };
}

/** The viewer page calls this once on load: the credential becomes usable in this browser only. */
function registerBinding(
  app: FastifyInstance,
  services: ViewerAppServices,
  { grantOf }: ReturnType<typeof viewerCredentials>,
): void {
  app.post(`${DICOMWEB_ROOT}/session`, { schema: { hide: true } }, async (req, reply) => {
    const grant = await grantOf(req);
    const name = bindingCookieName(grant.grantId);
    const bound = await services.viewerGrants.bind(grant, req.cookies[name]);
    const audit = (outcome: 'success' | 'denied') =>
      services.audit({
        actorId: grant.userId,
        action: 'viewer.bind',
        targetType: 'study',
        targetId: grant.studyId,
        outcome,
        requestId: req.id,
        ip: req.ip,
      });
    if (bound === 'refused') {
      await audit('denied');
      throw expired();
    }
    if (bound !== 'bound') {
      reply.setCookie(name, bound.secret, {
        httpOnly: true,
        sameSite: 'strict',
        secure: services.config.viewerPublicUrl.startsWith('https://'),
        path: DICOMWEB_ROOT,
        expires: grant.expiresAt,
      });
      await audit('success');
    }
    return reply.status(204).header('cache-control', 'no-store').send();
  });
}

/** OHIF's built app: our app-config.js, no service worker, its files, and index.html for its routes. */
async function serveOhif(
  app: FastifyInstance,
  ohif: string,
  indexHtml: string,
  appConfigFile: string | undefined,
): Promise<void> {
  const appConfig = appConfigFile && existsSync(appConfigFile) ? readFileSync(appConfigFile) : null;
  const appConfigTag = appConfig ? etagOf(appConfig) : '';
  const indexTag = etagOf(indexHtml);
  app.get('/app-config.js', { schema: { hide: true } }, async (req, reply) => {
    if (!appConfig) throw new AppError('NOT_FOUND', 'Not found');
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('etag', appConfigTag);
    return fresh(req, appConfigTag) ? reply.status(304).send() : reply.send(appConfig);
  });
  // OHIF registers a service worker for offline use; the viewer must always load fresh data.
  app.get('/init-service-worker.js', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send('// no service worker\n'),
  );
  await app.register(fastifyStatic, {
    root: ohif,
    // A wildcard route, so our app-config.js and the empty service-worker script above take precedence.
    wildcard: true,
    index: false,
    // fetch-ohif.mjs stores brotli and gzip copies beside each compressible file; they are sent
    // with Content-Encoding and Vary: Accept-Encoding to browsers that accept them.
    preCompressed: true,
    setHeaders(res, filePath) {
      // Content-hashed names (and OHIF's wasm, named by their hash) never change: cached for a
      // year without revalidation. Everything else is revalidated (ETag) on each load.
      res.header(
        'cache-control',
        /\.[0-9a-f]{16,}\.|^[0-9a-f]{16,}\.wasm$/.test(path.basename(filePath).replace(/\.(?:br|gz)$/, ''))
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      );
    },
  });
  app.setNotFoundHandler((req, reply) => {
    if (req.method === 'GET' && !req.url.startsWith(`${DICOMWEB_ROOT}/`)) {
      // OHIF's client-side routes (/viewer, /) all start from its index.html.
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('etag', indexTag);
      return fresh(req, indexTag) ? reply.status(304).send() : reply.send(indexHtml);
    }
    return reply.status(404).send({ error: 'Not found', code: 'NOT_FOUND' });
  });
}
