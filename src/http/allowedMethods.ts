import type { FastifyInstance } from 'fastify';
import { Problem } from '../core/problem.ts';

/** A registered path as a pattern over concrete paths: `:param` is one segment, `*` the rest. */
function pathPattern(url: string): RegExp {
  const body = url
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/**
 * A request with a method its path does not answer is a 405 naming those it does in `Allow`
 * (RFC 9110 §15.5.6), not a 404 saying the path does not exist. Fastify's router does not say
 * why it found nothing, so this keeps its own list of paths, filled as routes are added: call it
 * before any route is registered. It refuses in onRequest, before a body is read, so a body the
 * path would never take is not parsed (and cannot turn the 405 into a 400).
 */
export function registerAllowedMethods(app: FastifyInstance): void {
  const routes: Array<{ pattern: RegExp; methods: string[] }> = [];
  app.addHook('onRoute', (route) => {
    // A catch-all (CORS's `OPTIONS *`) says nothing about which paths exist.
    if (route.url === '*' || route.url === '/*') return;
    // Fastify adds a HEAD twin for every GET (exposeHeadRoutes), through onRoute too.
    routes.push({ pattern: pathPattern(route.url), methods: [route.method].flat() });
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.is404) return done();
    const path = request.url.split('?')[0];
    const allowed = new Set<string>();
    for (const route of routes) if (route.pattern.test(path)) for (const method of route.methods) allowed.add(method);
    if (allowed.size === 0) return done();
    const allow = [...allowed].sort().join(', ');
    done(new Problem('method-not-allowed', { detail: `${path} answers ${allow}, not ${request.method}.`, headers: { allow } }));
  });
}
