import type { FastifyInstance } from 'fastify';

/**
 * Every method and URL pattern an app serves, read from Fastify's own route tree (HEAD only where
 * it is not GET's twin), with parameters as `:name`.
 */
export function registeredRoutes(app: FastifyInstance): Array<{ method: string; url: string }> {
  const stack: string[] = [];
  const routes: Array<{ method: string; url: string }> = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.search(/[├└]── /);
    if (at < 0) continue;
    const depth = at / 4;
    const m = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 4))!;
    const segment = m[1]!.replace(/(:[A-Za-z0-9_]+)(?:\|:[A-Za-z0-9_]+)*/g, '$1');
    const parent = depth > 0 ? stack[depth - 1]! : '';
    stack[depth] = parent + (segment === '*' && !parent.endsWith('/') ? '/' : '') + segment;
    stack.length = depth + 1;
    const methods = m[2]?.split(', ') ?? [];
    for (const method of methods) {
      if (method === 'HEAD' && methods.includes('GET')) continue;
      routes.push({ method, url: stack[depth]! });
    }
  }
  return routes;
}
