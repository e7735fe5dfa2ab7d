import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import type { Write } from '../db/writeTransaction.ts';
import { checkIdempotencyKey, runIdempotent, type WriteResult } from './runIdempotent.ts';
import { requestFingerprint } from './requestFingerprint.ts';

/**
 * The one way a POST runs: under the caller's Idempotency-Key if it sent one, in one
 * transaction, answered (or replayed) with the stored status, body and Location.
 */
export async function idempotentPost(
  db: Db,
  secret: string,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (write: Write) => Promise<WriteResult>,
) {
  const key = checkIdempotencyKey(request.headers['idempotency-key']);
  const path = request.url.split('?')[0];
  const hash = requestFingerprint(secret, request.method, path, request.body);
  const result = await runIdempotent(db, { tenantId: request.caller.tenantId, key, hash }, work);
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  if (result.location) reply.header('location', result.location);
  reply.code(result.status);
  if (result.status >= 400) reply.type('application/problem+json');
  return result.body;
}
