import type { FastifyInstance } from 'fastify';

export interface Deprecation {
  /** When the route was (or will be) deprecated: RFC 3339. */
  since: string;
  /** When it stops answering: RFC 3339. */
  sunset?: string;
  /** Where the migration notes are (the changelog entry, say). */
  link?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Marks a route as scheduled to go: it then answers with Deprecation/Sunset headers. */
    deprecation?: Deprecation;
  }
}

/** RFC 9745: a structured-field Date, `@` and Unix seconds. */
export function deprecationHeader(since: string): string {
  return `@${Math.floor(Date.parse(since) / 1000)}`;
}

/** RFC 8594: an HTTP-date. */
export function sunsetHeader(sunset: string): string {
  return new Date(sunset).toUTCString();
}

/**
 * Every response of a route whose config carries `deprecation` says so (RFC 9745, RFC 8594),
 * with a `Link rel="deprecation"` (added to any Link the route already sends, e.g. page links).
 */
export function registerDeprecationHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const deprecation = request.routeOptions.config?.deprecation;
    if (!deprecation) return done(null, payload);
    reply.header('deprecation', deprecationHeader(deprecation.since));
    if (deprecation.sunset) reply.header('sunset', sunsetHeader(deprecation.sunset));
    if (deprecation.link) {
      const existing = reply.getHeader('link');
      const own = `<${deprecation.link}>; rel="deprecation"; type="text/html"`;
      reply.header('link', existing ? `${String(existing)}, ${own}` : own);
    }
    done(null, payload);
  });
}
