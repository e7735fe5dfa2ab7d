import type { FastifyInstance } from 'fastify';

/**
 * Every (method, path) the app has registered, read from `printRoutes` (the router's own
 * view, not the document's), with `:param` turned into `{param}`. HEAD routes are Fastify's
 * automatic twins of GETs and are left out.
 */
export function registeredRoutes(app: FastifyInstance): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ├└─]*?)(\S+) \(([^)]+)\)/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4 - 1;
    stack.length = depth;
    stack.push(match[2]);
    const path = stack.join('').replace(/:([A-Za-z_]+)/g, '{$1}');
    for (const method of match[3].split(', ')) if (method !== 'HEAD') routes.push({ method, path });
  }
  return routes;
}
