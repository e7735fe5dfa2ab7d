import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

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
 * framed, so the CSP allows nothing at all. A route serving HTML (a docs page) sets its own CSP
 * on the reply, which wins over these.
 */
const JSON_API_HELMET: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  noSniff: true,
};

/**
 * What helmet sets and removes for these options, read once by running it against a recording
 * response. None of our options depends on the request (no CSP nonces), so the set is the same
 * for every answer; @fastify/helmet rebuilt helmet's middleware and reparsed the CSP on every
 * request (about 5 % of a small page's CPU).
 */
export function helmetHeaders(options: HelmetOptions): { set: Array<[string, string]>; removed: string[] } {
  const set = new Map<string, string>();
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      set.set(name.toLowerCase(), String(value));
    },
    removeHeader(name: string) {
      set.delete(name.toLowerCase());
      removed.push(name.toLowerCase());
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return { set: [...set], removed };
}

export function registerSecurityHeaders(app: FastifyInstance): void {
  const { set, removed } = helmetHeaders(JSON_API_HELMET);
  // On the raw response, as helmet does: a header the route sets on the reply still wins.
  app.addHook('onRequest', (_request, reply, done) => {
    const raw = reply.raw;
    for (const name of removed) raw.removeHeader(name);
    for (const [name, value] of set) raw.setHeader(name, value);
    done();
  });
  // Errors and writes are never worth caching anywhere (they may carry payment data). Successful
  // reads keep whatever caching headers their route chose.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control') && (reply.statusCode >= 400 || (request.method !== 'GET' && request.method !== 'HEAD')))
      reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
