import type { FastifyInstance } from 'fastify';
import type { ReadRouting } from '../db/readReplicas.ts';
import { recordWritePosition } from '../db/writePositions.ts';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * With read replicas: every write a tenant is told succeeded (a 2xx to anything but a read, an
 * idempotent replay too) records the primary's WAL position before its answer leaves
 * (db/writePositions.ts), so the tenant's next read, on any instance, goes to a replica only
 * once that replica has it. One place for every write route, present and future. If the
 * position cannot be recorded the write is not acknowledged: the client gets the error (a 503)
 * and retries with its Idempotency-Key, and the replay records it.
 */
export function registerWritePositionRecording(app: FastifyInstance, reads: ReadRouting): void {
  if (reads.replicas.length === 0) return;
  app.addHook('onSend', async (request, reply, payload) => {
    if (READ_METHODS.has(request.method) || !request.caller || reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    await recordWritePosition(reads.primary, request.caller.tenantId);
    return payload;
  });
}
