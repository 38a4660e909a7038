import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { MAX_JSON_BODY_BYTES } from '@mi/contracts/errors';
import { isSpaRoute } from '@mi/contracts/spa-routes';
import type { Config } from '../config';
import { loggerOptions } from '../logger';
import type { Services } from '../services';
import { installAuthHook, installRoleGate } from './auth-hook';
import { installSecurityHeaders } from './security-headers';
import { installErrorHandler } from './error-handler';
import { installCsrfGuard } from './csrf-guard';
import { installInputGuard } from './input-guard';
import { publicOpenApiDocument } from './openapi-document';
import { SERVER_TIMEOUTS } from './server-timeouts';
import { sharedRateLimitStore } from './rate-limit-store';

export interface AppOptions {
  /** Directory of the built SPA; when it exists, `/` and unknown non-API paths serve it. */
  webDistDir?: string;
  /** Tests pass false to keep output quiet. */
  logRequests?: boolean;
}

/** Paths that are never a page of the SPA: the APIs, dot-files (/.env, /.git/…) and file names. */
const NEVER_A_PAGE = /^\/(?:api|dicomweb|fhir)(?:[/?]|$)|\/\.|\.[^/]*$/i;

/**
 * What a GET of a path no route or file answered gets: the app page for one of the SPA's routes
 * (packages/contracts/src/spa-routes.ts), the app page with a 404 for another page-like path, and
 * nothing (a plain 404) under /api, /dicomweb or /fhir, for dot-files and for missing files.
 */
export function appPageFor(url: string): 'route' | 'unknown' | 'none' {
  let pathname = url.split('?')[0]!;
  try {
    pathname = decodeURIComponent(pathname);
  } catch {
    return 'none';
  }
  if (NEVER_A_PAGE.test(pathname)) return 'none';
  return isSpaRoute(pathname) ? 'route' : 'unknown';
}

/** What the HTTP app is built from: the config, the shared rate-limit counters, sessions, and every module's routes. */
export type AppServices = Pick<Services, 'config' | 'requestWindows' | 'auth' | 'routes'>;

/** Builds the HTTP app from ready services. Listening is the caller's business. */
export async function buildApp(services: AppServices, opts: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: opts.logRequests === false ? false : loggerOptions(config.logLevel),
    genReqId: () => randomUUID(),
    bodyLimit: MAX_JSON_BODY_BYTES,
    trustProxy: config.trustProxy,
    ...SERVER_TIMEOUTS,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  installInputGuard(app);
  installCsrfGuard(app, [config.publicUrl]);
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    // API answers are personal; never let a shared cache keep them.
    if (req.url.startsWith('/api/') && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  await installSecurityHeaders(app, securityHeaders(config));
  await registerPlugins(app, services);
  installAuthHook(app, services.auth, { secureCookies: config.secureCookies });
  installRoleGate(app);
  await registerRoutes(app, services);
  await serveSpa(app, opts.webDistDir);
  return app;
}

/** The Content-Security-Policy and other headers of every answer. */
function securityHeaders(config: Config): Parameters<typeof installSecurityHeaders>[1] {
  const recaptcha = Boolean(config.recaptcha);
  // Google Identity Services: its script, button iframe, styles and token endpoint (only when configured).
  const google = config.googleClientId ? ['https://accounts.google.com'] : [];
  // Stripe Elements (only when Stripe is the card processor): Stripe.js, its card frames, its API.
  const stripeJs = config.stripe ? ['https://js.stripe.com', 'https://*.js.stripe.com'] : [];
  const stripeFrames = config.stripe ? [...stripeJs, 'https://hooks.stripe.com'] : [];
  const stripeApi = config.stripe ? ['https://api.stripe.com'] : [];
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: [
          "'self'",
          ...(recaptcha ? ['https://www.google.com', 'https://www.gstatic.com'] : []),
          ...google,
          ...stripeJs,
        ],
        styleSrc: ["'self'", "'unsafe-inline'", ...google],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", ...google, ...stripeApi],
        workerSrc: ["'self'", 'blob:'],
        // blob: for the report PDFs the study link page (/shl) decrypts and shows in a frame: a blob
        // document inherits this policy, and Chrome's PDF viewer loads its data as a plugin object.
        frameSrc: [
          "'self'",
          'blob:',
          ...(recaptcha ? ['https://www.google.com'] : []),
          ...google,
          ...stripeFrames,
        ],
        frameAncestors: ["'none'"],
        objectSrc: ['blob:'],
        baseUri: ["'self'"],
        formAction: ["'self'"],
      },
    },
    // HSTS only makes sense when the app is served over HTTPS.
    hsts: config.secureCookies ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'no-referrer' },
  };
}

/** Cookies, rate limits and the OpenAPI document. */
async function registerPlugins(app: FastifyInstance, services: AppServices): Promise<void> {
  await app.register(fastifyCookie);
  // Limits count across API processes: the counters live in the database (http/rate-limit-store.ts).
  await app.register(fastifyRateLimit, {
    global: false,
    store: sharedRateLimitStore(services.requestWindows),
  });
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Medical Imaging API', version: '3.0.0' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          cookie: { type: 'apiKey', in: 'cookie', name: 'authToken' },
        },
      },
      security: [{ bearer: [] }, { cookie: [] }],
    },
    transform: jsonSchemaTransform,
  });
}

/** Every module's routes: under /api, and DICOMweb and FHIR at their own prefixes. */
async function registerRoutes(app: FastifyInstance, services: AppServices): Promise<void> {
  await app.register(
    async (api) => {
      // The whole document for admins; others get it without admin and internal operations.
      api.get('/docs', { schema: { hide: true } }, async (req) =>
        req.auth?.user.role === 'admin' ? app.swagger() : publicOpenApiDocument(app.swagger()),
      );
      for (const routes of services.routes.api(services.config)) await api.register(routes);
    },
    { prefix: '/api' },
  );
  for (const { prefix, plugin } of services.routes.mounts()) await app.register(plugin, { prefix });
}

/** The built SPA, when there is one, and the answer to paths no route or file answered. */
async function serveSpa(app: FastifyInstance, webDistDir: string | undefined): Promise<void> {
  const spa = webDistDir && existsSync(webDistDir) ? webDistDir : undefined;
  if (spa) {
    await app.register(fastifyStatic, {
      root: spa,
      wildcard: false,
      index: false,
      // Hashed assets never change; index.html must always be re-read.
      setHeaders(res, filePath) {
        res.header(
          'cache-control',
          filePath.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const page = spa && (req.method === 'GET' || req.method === 'HEAD') ? appPageFor(req.url) : 'none';
    if (page !== 'none') {
      // The SPA's own routes get the app page; another page-like path gets it with a 404, so a
      // mistyped link shows the app's not-found card.
      return reply
        .status(page === 'route' ? 200 : 404)
        .header('cache-control', 'no-cache')
        .sendFile('index.html', spa!);
    }
    return reply.status(404).send({ error: 'Not found', code: 'NOT_FOUND' });
  });
}
