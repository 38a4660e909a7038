import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DicomwebService, Principal } from './dicomweb.service';
import { dicomwebRouteContext } from './dicomweb-route-kit';
import { renderedRoutes } from './dicomweb-rendered.routes';
import { retrieveRoutes } from './dicomweb-retrieve.routes';
import { searchRoutes } from './dicomweb-search.routes';
import { wadoUriRoutes } from './dicomweb-wado-uri.routes';

export interface DicomwebRouteOptions {
  dicomweb: DicomwebService;
  /** Who is calling; throws 401 when nobody is. Each origin has its own credential. */
  principal(req: FastifyRequest): Promise<Principal>;
}

/**
 * DICOMweb (QIDO-RS, WADO-RS, WADO-URI) under `/dicomweb` on the origin that registers it. Every
 * route resolves the caller first and answers only for studies that caller may see. The routes
 * are grouped by resource family: search (dicomweb-search.routes.ts), retrieve: metadata,
 * instances, frames and bulk data (dicomweb-retrieve.routes.ts), rendered thumbnails
 * (dicomweb-rendered.routes.ts) and WADO-URI (dicomweb-wado-uri.routes.ts).
 */
export function dicomwebRoutes(opts: DicomwebRouteOptions): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onSend', async (_req, reply) => {
      // Personal data: never kept by shared caches.
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-store');
    });
    const ctx = dicomwebRouteContext(opts.dicomweb, opts.principal);
    searchRoutes(app, ctx);
    retrieveRoutes(app, ctx);
    renderedRoutes(app, ctx);
    wadoUriRoutes(app, ctx);
  };
}
