import type { FastifyReply, FastifyRequest } from 'fastify';

/** A JSON answer serialised once (and gzipped once) by a cache: My Studies, Shared Studies. */
export interface SerializedList {
  body: Buffer;
  etag: string;
  gzipped: Buffer;
  gzippedEtag: string;
}

/**
 * Sends a cached list as a browser expects: `no-cache` (kept, but revalidated on every use), the
 * ETag of the representation sent, 304 while either representation's tag is presented, and the
 * gzipped bytes when the client accepts them. Fastify sends a Buffer as is, so the route's response
 * schema documents rather than serialises it.
 */
export function sendSerializedList(req: FastifyRequest, reply: FastifyReply, list: SerializedList) {
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  reply
    .header('etag', gzip ? list.gzippedEtag : list.etag)
    .header('cache-control', 'private, no-cache')
    .header('vary', 'Accept-Encoding');
  if (isNotModified(ifNoneMatchOf(req), list)) return reply.status(304).send();
  reply.header('content-type', 'application/json; charset=utf-8');
  if (gzip) return reply.header('content-encoding', 'gzip').send(list.gzipped);
  return reply.send(list.body);
}

/** The request's If-None-Match, when it has one. */
export function ifNoneMatchOf(req: FastifyRequest): string | undefined {
  const value = req.headers['if-none-match'];
  return typeof value === 'string' ? value : undefined;
}

/** Whether the client holds the list already: either representation's tag names the same list. */
export function isNotModified(
  ifNoneMatch: string | undefined,
  list: Pick<SerializedList, 'etag' | 'gzippedEtag'>,
): boolean {
  return (
    ifNoneMatch !== undefined &&
    (etagMatches(ifNoneMatch, list.etag) || etagMatches(ifNoneMatch, list.gzippedEtag))
  );
}

/** If-None-Match against one strong ETag: `*`, or a list that contains it (weak or not). */
function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Whether Accept-Encoding allows gzip (`gzip`, `*`, with any q but 0). */
function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
