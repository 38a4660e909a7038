/** Every method and path of `printRoutes()`'s tree (HEAD only where it is not GET's twin). */
export function routesOfTree(tree: string): Array<{ method: string; path: string }> {
  const stack: string[] = [];
  const routes: Array<{ method: string; path: string }> = [];
  for (const line of tree.split('\n')) {
    const at = line.search(/[├└]── /);
    if (at < 0) continue;
    const depth = at / 4;
    const m = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 4))!;
    const segment = m[1]!.replace(/:([A-Za-z0-9_]+)(?:\|:[A-Za-z0-9_]+)*/g, '{$1}').replace(/\*/g, '{*}');
    const parent = depth > 0 ? stack[depth - 1]! : '';
    // The tree prints a wildcard child of `/a` as `*`, though the route is `/a/*`.
    stack[depth] = parent + (segment === '{*}' && !parent.endsWith('/') ? '/' : '') + segment;
    stack.length = depth + 1;
    const methods = m[2]?.split(', ') ?? [];
    for (const method of methods) {
      if (method === 'HEAD' && methods.includes('GET')) continue;
      routes.push({ method, path: stack[depth]! });
    }
  }
  return routes;
}
