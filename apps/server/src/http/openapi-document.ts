import { ADMIN_AREA } from './auth-hook';

/**
 * Operations called by other systems, not by people or our app: the card processor's webhook
 * (modules/orders/payments.routes.ts) and external AI vendors' report callback
 * (modules/vendors/vendors.routes.ts, described in docs/vendor-protocol.md).
 */
const INTERNAL_PATHS = [/^\/api\/payments\/webhook$/, /^\/api\/vendors\//];

interface OpenApiDocument {
  paths?: object;
  tags?: Array<{ name: string }>;
}

const isAdminOperation = (operation: unknown) =>
  Boolean(
    operation &&
    typeof operation === 'object' &&
    (operation as { tags?: unknown }).tags instanceof Array &&
    (operation as { tags: unknown[] }).tags.includes('admin'),
  );

/**
 * GET /api/docs for everyone but admins: the OpenAPI document without the admin area's operations
 * (under /api/admin/ or tagged admin) and without the internal ones above. Admins get all of it.
 */
export function publicOpenApiDocument<T extends OpenApiDocument>(full: T): T {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries((full.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    if (path.startsWith(ADMIN_AREA) || INTERNAL_PATHS.some((p) => p.test(path))) continue;
    const kept = Object.fromEntries(Object.entries(item).filter(([, op]) => !isAdminOperation(op)));
    if (Object.keys(kept).length > 0) paths[path] = kept;
  }
  return {
    ...full,
    paths,
    ...(full.tags ? { tags: full.tags.filter((t) => t.name !== 'admin') } : {}),
  };
}
