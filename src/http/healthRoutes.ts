import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { databaseReadiness } from '../db/readiness.ts';
import { serviceUnavailable } from '../core/problem.ts';

const Status = Type.Object({ status: Type.String() });

export function registerHealthRoutes(app: FastifyInstance, db: Db, isShuttingDown: () => boolean, readyTimeoutMs?: number): void {
  app.get('/health', { schema: { summary: 'Liveness', tags: ['operations'], response: { 200: Status } } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { summary: 'Readiness: the database answers and takes writes', tags: ['operations'], response: { 200: Status } } }, async () => {
    if (isShuttingDown()) throw serviceUnavailable('Shutting down.');
    const readiness = await databaseReadiness(db, readyTimeoutMs);
    if (readiness === 'not-answering') throw serviceUnavailable('The database does not answer.');
    if (readiness === 'read-only') throw serviceUnavailable('The database takes no writes (a standby, or set read-only).');
    return { status: 'ready' };
  });
}
