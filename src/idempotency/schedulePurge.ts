import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { purgeExpiredKeys } from './runIdempotent.ts';

const EVERY_MS = 10 * 60 * 1000;

/** Drops expired idempotency keys now and then while the app runs; never keeps the process alive. */
export function schedulePurge(app: FastifyInstance, db: Kysely<Database>): void {
  const purge = () => purgeExpiredKeys(db).catch((err) => app.log.warn({ err }, 'idempotency purge failed'));
  const timer = setInterval(purge, EVERY_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
