import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import type { StatementGuard } from '../db/guardedStatement.ts';
import type { Write } from '../db/writeTransaction.ts';
import { checkIdempotencyKey, runIdempotent, type KeyedRequest, type WriteResult } from './runIdempotent.ts';
import { requestFingerprint } from './requestFingerprint.ts';

/**
 * The one way a POST runs: under the caller's Idempotency-Key if it sent one, in one
 * transaction, answered (or replayed) with the stored status, body and Location.
 */
export async function idempotentPost<Body>(
  db: Db,
  secret: string,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (write: Write) => Promise<WriteResult & { body: Body }>,
  /**
   * A quicker way to the same writes and answer, tried first; undefined when its conditions do not
   * hold (it then wrote nothing). `unproven`: the caller's key when not yet checked for this request
   * (auth/authenticate.ts), which its first write must carry as a guard.
   */
  atOnce?: (claim: KeyedRequest, unproven: StatementGuard | undefined) => Promise<WriteResult | undefined>,
): Promise<Body> {
  const key = checkIdempotencyKey(request.headers['idempotency-key']);
  const path = request.url.split('?')[0];
  const hash = requestFingerprint(secret, request.method, path, request.body);
  const claim = { tenantId: request.caller.tenantId, key, hash };
  const quick = atOnce && (await atOnce(claim, request.caller.unproven));
  // The general way writes only on a key proven valid: its lookup answers the refusal (401, 403) first.
  if (!quick) await request.caller.unproven?.check();
  const result = quick ? { ...quick, replayed: false } : await runIdempotent(db, claim, work);
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  if (result.location) reply.header('location', result.location);
  reply.code(result.status);
  if (result.status >= 400) reply.type('application/problem+json');
  // What `work` answered, or its replay as stored: a success body of the same shape, or a problem
  // document sent with its own status (which the route's response schema for that status serializes).
  return result.body as Body;
}
