import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import type { ReadRouting, ReadTarget } from '../db/readReplicas.ts';

/**
 * Runs a tenant's read where it may run (db/readReplicas.ts): a replica that has replayed the
 * tenant's last acknowledged write, else the primary; `db` when no routing is given. The answer
 * says where in its Server-Timing (`db;desc="replica host:port"` or `db;desc="primary"`).
 * `work` must send nothing: it may run again on the primary.
 */
export function tenantRead<T>(reads: ReadRouting | undefined, db: Db, request: FastifyRequest, reply: FastifyReply, work: (db: Db) => Promise<T>): Promise<T> {
  if (!reads) return work(db);
  return reads.read(request.caller.writtenUpTo, work, (target) => reply.header('server-timing', serverTimingOf(target)));
}

function serverTimingOf({ target }: ReadTarget): string {
  return `db;desc="${target === 'primary' ? 'primary' : `replica ${target}`}"`;
}
