import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { flagged } from '../db/driverFlags.ts';
import { notFound } from '../core/problem.ts';
import { isIdOf } from '../core/resourceId.ts';
import { listHandler, listRouteConfig, listQuerySchema, EnvelopeSchema, ResourceSchema, tenantRead } from '../lists/index.ts';
import type { ListContext } from '../lists/index.ts';
import { answerSingleRead, singleReadRoute } from '../representations/sendStoredResource.ts';
import { eventRepresentation } from './eventRepresentation.ts';
import { eventListSpec } from './eventListSpec.ts';
import { EventSchema } from './eventSchema.ts';

export const EventParams = Type.Object({ event: Type.String() });

/**
 * The tenant's event, or a 404 (a malformed id is answered without a query). Flagged bounded: one row
 * by its primary key, so on SQLite it is read inline, never on a reader.
 */
export async function findEvent(db: Db, tenantId: string, id: string) {
  const query = db.kysely.selectFrom('events').select(['id', 'type', 'resource']).where('tenant_id', '=', tenantId).where('id', '=', id);
  const row = isIdOf('evt', id) ? (await db.kysely.executeQuery(flagged(query, { bounded: true }))).rows[0] : undefined;
  if (!row) throw notFound(`No event ${id}.`);
  return row;
}

export function registerEventRoutes(fastify: FastifyInstance, db: Db, lists: ListContext, publicUrl: string | undefined): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const singleRead = singleReadRoute(eventRepresentation);
  app.get('/v3/events', {
    config: { scope: 'read', ...listRouteConfig(eventListSpec, eventRepresentation) },
    schema: {
      summary: 'List events (oldest first)',
      description: 'Every change to an account or a payment, kept for EVENT_RETENTION_DAYS (default 30).',
      tags: ['events'],
      querystring: listQuerySchema(eventListSpec, eventRepresentation),
      response: { 200: EnvelopeSchema(EventSchema) },
    },
    handler: listHandler({
      lists,
      table: 'events',
      spec: eventListSpec,
      publicUrl,
      representation: eventRepresentation,
      scopeOf: (request) => ({ tenantId: request.caller.tenantId }),
    }),
  });

  app.get('/v3/events/:event', {
    config: { scope: 'read', ...singleRead.config },
    schema: {
      summary: 'Get one event',
      tags: ['events'],
      params: EventParams,
      querystring: singleRead.querystring,
      response: { 200: ResourceSchema(EventSchema) },
    },
    handler: async (request, reply) =>
      answerSingleRead(reply, eventRepresentation, request.query, request.caller.tenantId, async () => {
        return (await tenantRead(lists.reads, db, request, reply, (r) => findEvent(r, request.caller.tenantId, request.params.event))).resource;
      }),
  });
}
