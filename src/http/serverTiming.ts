import type { FastifyInstance } from 'fastify';

/**
 * `Server-Timing: app;dur=12.3`: how long the server worked on a response (routing, auth,
 * queries, serialization) before writing it. Browsers' devtools show it; the benchmark sums it
 * to tell server time from the client's own parsing and the wire. A read served with replicas
 * configured adds where it ran: `app;dur=1.2, db;desc="replica 10.0.0.7:5432"`.
 */
export function registerServerTiming(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    // A read says which database answered it (lists/tenantReads.ts): kept, after the duration.
    const db = reply.getHeader('server-timing');
    reply.header('server-timing', `app;dur=${reply.elapsedTime.toFixed(1)}${db ? `, ${db}` : ''}`);
    done(null, payload);
  });
}
