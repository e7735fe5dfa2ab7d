import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { serviceUnavailable } from '../core/problem.ts';

const Status = Type.Object({ status: Type.String() });

export function registerHealthRoutes(app: FastifyInstance, db: Db, isShuttingDown: () => boolean): void {
  app.get('/health', { schema: { summary: 'Liveness', tags: ['operations'], response: { 200: Status } } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { summary: 'Readiness: the database answers', tags: ['operations'], response: { 200: Status } } }, async () => {
    if (isShuttingDown()) throw serviceUnavailable('Shutting down.');
    if (!(await db.ping())) throw serviceUnavailable('The database does not answer.');
    return { status: 'ready' };
  });
}
