import type { FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';

/**
 * The same protections as plain headers, for answers written where no hook runs (the router's
 * own errors, errors on the raw socket).
 */
export const BASELINE_SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cache-control': 'no-store',
};

/**
 * Headers for a JSON API (OWASP Secure Headers): nothing here is meant to be rendered or
 * framed, so the CSP allows nothing at all. A route serving HTML (a docs page) overrides it
 * with its own route option, e.g. `{ helmet: { contentSecurityPolicy: { directives: … } } }`.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    noSniff: true,
  });
  // Errors and writes are never worth caching anywhere (they may carry payment data). Successful
  // reads keep whatever caching headers their route chose.
  app.addHook('onSend', async (request, reply) => {
    if (reply.hasHeader('cache-control')) return;
    if (reply.statusCode >= 400 || (request.method !== 'GET' && request.method !== 'HEAD')) reply.header('cache-control', 'no-store');
  });
}
