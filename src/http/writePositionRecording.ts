import type { FastifyInstance } from 'fastify';
import type { ReadRouting } from '../db/readReplicas.ts';
import { recordWritePosition } from '../db/writePositions.ts';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * With read replicas: every write a tenant is told succeeded records the primary's WAL position before
 * its answer leaves, so its next read goes to a replica only once that has it (decision 0011). One
 * place for every write route. If the position cannot be recorded the write is not acknowledged
 * (a 503), and the client's retry with its Idempotency-Key records it.
 */
export function registerWritePositionRecording(app: FastifyInstance, reads: ReadRouting): void {
  if (reads.replicas.length === 0) return;
  app.addHook('onSend', async (request, reply, payload) => {
    if (READ_METHODS.has(request.method) || !request.caller || reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    await recordWritePosition(reads.primary, request.caller.tenantId);
    return payload;
  });
}
