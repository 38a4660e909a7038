import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { OperationOutcomeIssue, Resource } from '@medplum/fhirtypes';
import { errorCodeForStatus, errorStatus } from '@mi/contracts/errors';
import { AppError } from '../../http/app-error';
import { requestMeta } from '../../http/auth-hook';
import { FHIR_JSON, operationOutcome } from './fhir-resources';
import type { SearchQuery } from './fhir-search';
import { FHIR_TYPES, type FhirService, type FhirType, type Principal } from './fhir.service';

export interface FhirRouteOptions {
  fhir: FhirService;
  /** Who is calling; throws 401 when nobody is (modules/dicomweb's sessionPrincipal). */
  principal(req: FastifyRequest): Promise<Principal>;
}

const READ_METHODS = new Set(['GET', 'HEAD']);
const JSON_FORMATS = new Set(['json', 'application/json', FHIR_JSON, 'application/json+fhir']);

/** The OperationOutcome issue type of an HTTP error status. */
function issueCode(status: number): OperationOutcomeIssue['code'] {
  switch (status) {
    case 400:
      return 'invalid';
    case 401:
      return 'login';
    case 403:
      return 'forbidden';
    case 404:
      return 'not-found';
    case 405:
    case 406:
      return 'not-supported';
    case 429:
      return 'throttled';
    default:
      return status < 500 ? 'processing' : 'exception';
  }
}

function send(reply: FastifyReply, status: number, body: Resource) {
  return reply.status(status).type(`${FHIR_JSON}; charset=utf-8`).send(JSON.stringify(body));
}

/** Refuses a request that wants anything but JSON (`_format`, or an Accept header without JSON). */
function requireJson(req: FastifyRequest) {
  const format = (req.query as SearchQuery | undefined)?._format;
  const formats = format === undefined ? [] : Array.isArray(format) ? format : [format];
  const accept = req.headers.accept;
  const acceptsJson = !accept || /json|\*\/\*|application\/\*/i.test(accept);
  if (formats.some((f) => !JSON_FORMATS.has(f.split(';')[0]!.trim())) || (!formats.length && !acceptsJson))
    throw new AppError('NOT_ACCEPTABLE', 'This server answers in FHIR JSON only (application/fhir+json)');
}

/**
 * The FHIR R4 read API under `/fhir/R4`: `metadata`, read (`{type}/{id}`) and search (`{type}?…`)
 * of Patient, ImagingStudy, DiagnosticReport, DocumentReference and Endpoint, for a signed-in user
 * or another bearer credential (the service applies the access rule). Every answer, errors
 * included, is `application/fhir+json`; errors are OperationOutcomes; writes answer 405.
 */
export function fhirRoutes(opts: FhirRouteOptions): FastifyPluginAsyncZod {
  const { fhir } = opts;
  return async (app) => {
    app.addHook('onRequest', async (req, reply) => {
      // Personal data: never kept by shared caches.
      reply.header('cache-control', 'private, no-store');
      // Before any body is read: this API has no writes, whatever is sent.
      if (!READ_METHODS.has(req.method)) {
        reply.header('allow', 'GET, HEAD');
        throw new AppError(
          'METHOD_NOT_ALLOWED',
          `${req.method} is not supported: this FHIR API is read-only`,
        );
      }
    });

    app.setErrorHandler((err: FastifyError, req, reply) => {
      const status =
        err instanceof AppError
          ? err.status
          : err.statusCode && err.statusCode >= 400 && err.statusCode < 500
            ? err.statusCode
            : 500;
      if (status === 401) reply.header('www-authenticate', 'Bearer realm="fhir"');
      if (status >= 500) req.log.error({ err }, 'fhir request failed');
      const message =
        status >= 500
          ? `Something went wrong on our side (request ${req.id}). Please try again.`
          : err.message || errorCodeForStatus(status);
      return send(reply, status, operationOutcome(issueCode(status), message));
    });

    app.setNotFoundHandler((req, reply) =>
      send(
        reply,
        errorStatus.NOT_FOUND,
        operationOutcome(
          'not-found',
          `No resource or operation at ${req.method} ${req.url.split('?')[0]!.slice(0, 200)}`,
        ),
      ),
    );

    const hide = { schema: { hide: true } } as const;

    app.get('/metadata', hide, async (req, reply) => {
      requireJson(req);
      return send(reply, 200, fhir.capabilityStatement());
    });

    const resourceType = (req: FastifyRequest): FhirType => {
      const type = (req.params as { type: string }).type;
      if (!(FHIR_TYPES as readonly string[]).includes(type))
        throw new AppError('NOT_FOUND', `Resource type ${type.slice(0, 64)} is not served here`);
      return type as FhirType;
    };

    app.get('/:type', hide, async (req, reply) => {
      const type = resourceType(req);
      requireJson(req);
      const p = await opts.principal(req);
      const strict = /\bhandling=strict\b/i.test(String(req.headers.prefer ?? ''));
      return send(
        reply,
        200,
        await fhir.search(p, type, req.query as SearchQuery, requestMeta(req), { strict }),
      );
    });

    app.get('/:type/:id', hide, async (req, reply) => {
      const type = resourceType(req);
      requireJson(req);
      const p = await opts.principal(req);
      const { id } = req.params as { id: string };
      return send(reply, 200, await fhir.read(p, type, id, requestMeta(req)));
    });

    // Writes reach the onRequest hook above (405); these routes only make the paths match.
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/',
      // The base alone (`/fhir/R4`); `/fhir/R4/` is the wildcard route's, so each path has one route.
      prefixTrailingSlash: 'no-slash',
      ...hide,
      handler: async () => undefined,
    });
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/*',
      ...hide,
      handler: async () => undefined,
    });
  };
}
