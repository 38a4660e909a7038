import type { FastifyReply, FastifyRequest } from 'fastify';

/** A list serialised as `{"data":[…]}`, with where each item starts, so that a page is a slice of it. */
export interface SerializedItems {
  body: Buffer;
  /**
   * Byte offset of each item in `body`, and one more entry one past the last item's end (as if a
   * comma followed it): item i is `body[bounds[i], bounds[i + 1] - 1)`.
   */
  bounds: Uint32Array;
  count: number;
}

/** A JSON answer serialised once (and gzipped once) by a cache: My Studies, Shared Studies. */
export interface SerializedList extends SerializedItems {
  etag: string;
  gzipped: Buffer;
  gzippedEtag: string;
}

/**
 * Part of a list, for API clients that page (`?offset=&limit=`): the browser takes the whole list
 * gzipped and pages, sorts and filters it on screen, but a client that takes no gzip would be sent
 * every study's bytes uncompressed on each read.
 */
export interface ListPage {
  offset: number;
  /** Everything from `offset` on when absent. */
  limit: number | undefined;
}

/** Memory a cached list holds: both representations and the item offsets. */
export function cachedBytes(list: SerializedList): number {
  return list.body.length + list.bounds.byteLength + list.gzipped.length;
}

const OPEN = '{"data":[';

/** Serialises the items once, recording where each begins (see SerializedItems). */
export function serializeItems(items: readonly unknown[]): SerializedItems {
  const parts = items.map((item) => JSON.stringify(item));
  const bounds = new Uint32Array(parts.length + 1);
  let at = OPEN.length;
  for (const [i, part] of parts.entries()) {
    bounds[i] = at;
    at += Buffer.byteLength(part) + 1;
  }
  bounds[parts.length] = at;
  return { body: Buffer.from(`${OPEN}${parts.join(',')}]}`), bounds, count: parts.length };
}

/** The page a request asks for, or undefined for the whole list. */
export function pageOf(query: {
  offset?: number | undefined;
  limit?: number | undefined;
}): ListPage | undefined {
  if (query.offset === undefined && query.limit === undefined) return undefined;
  return { offset: query.offset ?? 0, limit: query.limit };
}

/** A page's own strong ETag: it moves whenever the list does. */
function pageEtag(list: Pick<SerializedList, 'etag'>, page: ListPage): string {
  return `"${list.etag.slice(1, -1)}-p${page.offset}-${page.limit ?? 'all'}"`;
}

/** `{"data":[…],"total":n}`: the page's items copied out of the cached body as they are. */
function pageBody(list: SerializedItems, page: ListPage): Buffer {
  const from = Math.min(page.offset, list.count);
  const to = page.limit === undefined ? list.count : Math.min(from + page.limit, list.count);
  const items = from < to ? list.body.subarray(list.bounds[from], list.bounds[to]! - 1) : Buffer.alloc(0);
  return Buffer.concat([Buffer.from(OPEN), items, Buffer.from(`],"total":${list.count}}`)]);
}

/**
 * Sends a cached list as a browser expects: `no-cache` (kept, but revalidated on every use), the
 * ETag of the representation sent, 304 while either representation's tag is presented, and the
 * gzipped bytes when the client accepts them. A page (at most 1,000 items) is sent uncompressed,
 * under its own tag. Fastify sends a Buffer as is, so the route's response schema documents rather
 * than serialises it.
 */
export function sendSerializedList(
  req: FastifyRequest,
  reply: FastifyReply,
  list: SerializedList,
  page?: ListPage,
) {
  if (page) {
    reply.header('etag', pageEtag(list, page)).header('cache-control', 'private, no-cache');
    if (isNotModified(ifNoneMatchOf(req), list, page)) return reply.status(304).send();
    return reply.header('content-type', 'application/json; charset=utf-8').send(pageBody(list, page));
  }
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

/**
 * Whether the client holds the answer already: for the whole list either representation's tag names
 * it; a page has a tag of its own.
 */
export function isNotModified(
  ifNoneMatch: string | undefined,
  list: Pick<SerializedList, 'etag' | 'gzippedEtag'>,
  page?: ListPage,
): boolean {
  if (ifNoneMatch === undefined) return false;
  if (page) return etagMatches(ifNoneMatch, pageEtag(list, page));
  return etagMatches(ifNoneMatch, list.etag) || etagMatches(ifNoneMatch, list.gzippedEtag);
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
