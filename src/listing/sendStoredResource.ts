import type { FastifyReply } from 'fastify';

/**
 * Answers GET-one with the record's stored representation (`{data}` around its JSON text), the
 * very text the lists splice into their pages: one owner for how a record reads. The live
 * renderers that writes use must render the same text (test/db/storedRenderers.test.ts).
 */
export function sendStoredResource(reply: FastifyReply, resource: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(`{"data":${resource}}`);
}
