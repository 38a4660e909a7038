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
import { loggerOptions } from '../logger';
import { adminRoutes } from '../modules/admin';
import { authRoutes } from '../modules/auth';
import { mfaRoutes } from '../modules/auth';
import { healthRoutes } from '../modules/health';
import { usersRoutes } from '../modules/users';
import { invitationsRoutes } from '../modules/invitations';
import { jobsRoutes } from '../modules/jobs';
import { notificationsRoutes } from '../modules/notifications';
import { sendStudyZip, studiesRoutes } from '../modules/studies';
import { deidentifiedDownload, deidentifyRoutes } from '../modules/deidentify';
import { uploadRoutes } from '../modules/uploads';
import { dicomwebRoutes } from '../modules/dicomweb';
import { sharingRoutes } from '../modules/sharing';
import { professionalProfileRoutes } from '../modules/providers';
import { providersRoutes } from '../modules/providers';
import { ratingsRoutes } from '../modules/ratings';
import { providersAdminRoutes } from '../modules/providers';
import { ownershipRoutes } from '../modules/sharing';
import { catalogueAdminRoutes } from '../modules/services';
import { professionalOffersRoutes } from '../modules/services';
import { servicesRoutes } from '../modules/services';
import { ordersRoutes } from '../modules/orders';
import { fulfilmentRoutes } from '../modules/fulfilment';
import { paymentsRoutes, paymentsWebhookRoutes } from '../modules/orders';
import { helpRoutes } from '../modules/help';
import { vendorsRoutes } from '../modules/vendors';
import { vendorsAdminRoutes } from '../modules/vendors';
import { DICOMWEB_ROOT } from '../modules/dicomweb';
import { FHIR_ROOT, fhirRoutes } from '../modules/fhir';
import { linksRoutes, shlRoutes } from '../modules/links';
import { exportsRoutes } from '../modules/exports';
import { sessionPrincipal } from '../modules/dicomweb';
import { thumbnailRoutes } from '../modules/thumbnails';
import { viewerRoutes } from '../modules/viewer';
import type { Services } from '../services';
import { installAuthHook, installRoleGate, requestMeta } from './auth-hook';
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

/** Builds the HTTP app from ready services. Listening is the caller's business. */
export async function buildApp(services: Services, opts: AppOptions = {}): Promise<FastifyInstance> {
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

  const recaptcha = Boolean(config.recaptcha);
  // Google Identity Services: its script, button iframe, styles and token endpoint (only when configured).
  const google = config.googleClientId ? ['https://accounts.google.com'] : [];
  // Stripe Elements (only when Stripe is the card processor): Stripe.js, its card frames, its API.
  const stripeJs = config.stripe ? ['https://js.stripe.com', 'https://*.js.stripe.com'] : [];
  const stripeFrames = config.stripe ? [...stripeJs, 'https://hooks.stripe.com'] : [];
  const stripeApi = config.stripe ? ['https://api.stripe.com'] : [];
  await installSecurityHeaders(app, {
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
  });
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

  installAuthHook(app, services.auth, { secureCookies: config.secureCookies });
  installRoleGate(app);

  await app.register(
    async (api) => {
      // The whole document for admins; others get it without admin and internal operations.
      api.get('/docs', { schema: { hide: true } }, async (req) =>
        req.auth?.user.role === 'admin' ? app.swagger() : publicOpenApiDocument(app.swagger()),
      );
      await api.register(healthRoutes(services.health));
      await api.register(
        authRoutes({
          auth: services.auth,
          recovery: services.recovery,
          security: services.security,
          captcha: services.captcha,
          config,
        }),
      );
      await api.register(
        adminRoutes({
          admin: services.admin,
          professionals: services.professionals,
          secureCookies: config.secureCookies,
        }),
      );
      await api.register(mfaRoutes({ mfa: services.mfa, auth: services.auth, config }));
      await api.register(usersRoutes({ users: services.usersService, config }));
      await api.register(uploadRoutes({ uploads: services.uploads, config }));
      await api.register(
        studiesRoutes(services.studies, { deidentifiedDownload: deidentifiedDownload(services.deidentify) }),
      );
      await api.register(deidentifyRoutes(services.deidentify));
      await api.register(jobsRoutes(services.jobsService));
      await api.register(notificationsRoutes(services.notifications));
      await api.register(viewerRoutes(services.viewer));
      await api.register(thumbnailRoutes(services.thumbnails));
      await api.register(providersRoutes(services.providers));
      await api.register(professionalProfileRoutes(services.providers));
      await api.register(ratingsRoutes(services.ratings));
      await api.register(providersAdminRoutes(services.providers));
      await api.register(sharingRoutes(services.sharing));
      await api.register(ownershipRoutes(services.ownership));
      await api.register(invitationsRoutes(services.invitations));
      await api.register(servicesRoutes(services.analysisServices));
      await api.register(professionalOffersRoutes(services.analysisServices));
      await api.register(catalogueAdminRoutes(services.catalogueAdmin));
      await api.register(ordersRoutes(services.orders));
      await api.register(fulfilmentRoutes(services.fulfilment));
      await api.register(paymentsRoutes(services.orders));
      await api.register(paymentsWebhookRoutes(services.orders));
      await api.register(helpRoutes(services.help));
      await api.register(vendorsAdminRoutes(services.vendors));
      await api.register(vendorsRoutes(services.vendors));
      await api.register(linksRoutes(services.links));
      await api.register(exportsRoutes(services.dataExports));
      await api.register(
        shlRoutes(services.links, {
          downloadRoute: (principal, studyId, req, reply) =>
            sendStudyZip(req, reply, (range) =>
              services.studies.downloadAs(principal, studyId, requestMeta(req), range),
            ),
        }),
      );
    },
    { prefix: '/api' },
  );
  // DICOMweb for standard clients of signed-in users and for external AI vendors' credentials; the
  // viewer uses its own origin's copy.
  await app.register(
    dicomwebRoutes({
      dicomweb: services.dicomweb,
      principal: sessionPrincipal(services.auth, services.vendors, services.links.credentials),
    }),
    {
      prefix: DICOMWEB_ROOT,
    },
  );
  // FHIR R4 (read only) for the same callers as DICOMweb; its resources point at DICOMweb.
  await app.register(
    fhirRoutes({
      fhir: services.fhir,
      principal: sessionPrincipal(services.auth, services.vendors, services.links.credentials),
    }),
    { prefix: FHIR_ROOT },
  );

  const spa = opts.webDistDir && existsSync(opts.webDistDir) ? opts.webDistDir : undefined;
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
  return app;
}
