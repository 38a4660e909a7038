import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './app-error';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a state-changing request comes from one of `origins` (or from no browser at all). */
export function isSameOriginRequest(req: FastifyRequest, origins: ReadonlySet<string>): boolean {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  // The request's own host counts too, so a deployment reached by another name (127.0.0.1 for
  // localhost, say) still works; an attacker's page cannot make a browser send our Host with its Origin.
  const own = `${req.protocol}://${req.host}`;
  const allowed = (o: string) => origins.has(o) || o === own;
  if (typeof origin === 'string') return origin !== 'null' && allowed(origin);
  // No Origin: browsers send Sec-Fetch-Site on every request; 'none' is the user typing the URL.
  if (typeof site === 'string') return site === 'same-origin' || site === 'none';
  // Neither header: not a browser (curl, a DICOMweb client, a webhook), which carries no ambient cookie.
  return true;
}

/**
 * Refuses a state-changing request sent by a page of another origin, whatever cookies it carries.
 * SameSite=Strict cookies alone do not suffice: the viewer's origin is same-site with the app's.
 */
export function installCsrfGuard(app: FastifyInstance, allowedOrigins: string[]): void {
  const origins = new Set(allowedOrigins.map((u) => new URL(u).origin));
  app.addHook('onRequest', async (req) => {
    if (SAFE_METHODS.has(req.method)) return;
    // Routes open to every origin by design (the SMART Health Links protocol, modules/links) act
    // on no cookie-borne authority, so another site's page gains nothing by calling them.
    if ((req.routeOptions.config as { crossOrigin?: boolean } | undefined)?.crossOrigin) return;
    if (!isSameOriginRequest(req, origins))
      throw new AppError('FORBIDDEN', 'This request came from another site and was refused.');
  });
}
