import type { FastifyInstance } from 'fastify';

/**
 * `Server-Timing: app;dur=12.3`: how long the server worked on a response (routing, auth,
 * queries, serialization) before writing it. Browsers' devtools show it; the benchmark sums it
 * to tell server time from the client's own parsing and the wire.
 */
export function registerServerTiming(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('server-timing', `app;dur=${reply.elapsedTime.toFixed(1)}`);
    done(null, payload);
  });
}
