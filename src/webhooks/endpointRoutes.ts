import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { inWriteTransaction } from '../db/writeTransaction.ts';
import { rowGuard } from '../db/rowGuard.ts';
import { notFound } from '../core/problem.ts';
import { OPTIONAL_BODY } from '../core/optionalBody.ts';
import { isIdOf } from '../core/resourceId.ts';
import { listHandler, listRouteConfig, listQuerySchema, EnvelopeSchema, ResourceSchema } from '../lists/index.ts';
import type { ListContext } from '../lists/index.ts';
import { answerSingleRead, singleReadRoute } from '../representations/sendStoredResource.ts';
import { deliveryRepresentation, endpointRepresentation } from './webhookRepresentations.ts';
import { toDeliveryResource } from '../events/deliveryResource.ts';
import { toEndpointResource } from './endpointResource.ts';
import {
  CreateEndpointBody,
  DeliverySchema,
  deliveryListSpec,
  endpointListSpec,
  UpdateEndpointBody,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './endpointSchemas.ts';
import { checkTargetUrl, createEndpoint, deleteEndpoint, rotateSecret, updateEndpoint } from './endpointWrites.ts';
import type { ResolveHost } from './targetSafety.ts';
import { EventParams, findEvent } from './eventRoutes.ts';
import { resendEvent } from './resendEvent.ts';

const EndpointParams = Type.Object({ endpoint: Type.String() });
const TAGS = ['webhooks'];

function endpointId(id: string): string {
  if (!isIdOf('whe', id)) throw notFound(`No webhook endpoint ${id}.`);
  return id;
}

async function findEndpoint(db: Db, tenantId: string, id: string) {
  const row = await db.kysely
    .selectFrom('webhook_endpoints')
    .select('resource')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', endpointId(id))
    .executeTakeFirst();
  if (!row) throw notFound(`No webhook endpoint ${id}.`);
  return row;
}

/** Webhook endpoints: the write scope for everything (an endpoint receives the tenant's data), each tenant its own. */
export function registerEndpointRoutes(
  fastify: FastifyInstance,
  db: Db,
  lists: ListContext,
  publicUrl: string | undefined,
  allowPrivate: boolean,
  resolveHost: ResolveHost,
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const write = { scope: 'write' as const };

  app.post('/v3/webhook_endpoints', {
    config: write,
    schema: {
      summary: 'Create a webhook endpoint (its signing secret is shown once, here)',
      tags: TAGS,
      body: CreateEndpointBody,
      response: { 201: ResourceSchema(WebhookEndpointWithSecretSchema) },
    },
    handler: async (request, reply) => {
      await checkTargetUrl(request.body.url, allowPrivate, resolveHost);
      const row = await inWriteTransaction(db, (w) => createEndpoint(w, request.caller.tenantId, request.body));
      return reply
        .code(201)
        .header('location', `/v3/webhook_endpoints/${row.id}`)
        .send({ data: { ...toEndpointResource(row), secret: row.secret } });
    },
  });

  app.get('/v3/webhook_endpoints', {
    config: { ...write, ...listRouteConfig(endpointListSpec, endpointRepresentation) },
    schema: {
      summary: 'List webhook endpoints',
      tags: TAGS,
      querystring: listQuerySchema(endpointListSpec, endpointRepresentation),
      response: { 200: EnvelopeSchema(WebhookEndpointSchema) },
    },
    handler: listHandler({
      lists,
      table: 'webhook_endpoints',
      spec: endpointListSpec,
      publicUrl,
      representation: endpointRepresentation,
      scopeOf: (request) => ({ tenantId: request.caller.tenantId }),
    }),
  });

  const singleRead = singleReadRoute(endpointRepresentation);
  app.get('/v3/webhook_endpoints/:endpoint', {
    config: { ...write, ...singleRead.config },
    schema: {
      summary: 'Get one webhook endpoint',
      tags: TAGS,
      params: EndpointParams,
      querystring: singleRead.querystring,
      response: { 200: ResourceSchema(WebhookEndpointSchema) },
    },
    handler: async (request, reply) =>
      answerSingleRead(reply, endpointRepresentation, request.query, request.caller.tenantId, async () => {
        return (await findEndpoint(db, request.caller.tenantId, request.params.endpoint)).resource;
      }),
  });

  app.patch('/v3/webhook_endpoints/:endpoint', {
    config: write,
    schema: {
      summary: 'Change a webhook endpoint (url, enabled_events, enabled); enabling clears disabled_reason',
      tags: TAGS,
      params: EndpointParams,
      body: UpdateEndpointBody,
      response: { 200: ResourceSchema(WebhookEndpointSchema) },
    },
    handler: async (request) => {
      const id = endpointId(request.params.endpoint);
      if (request.body.url !== undefined) await checkTargetUrl(request.body.url, allowPrivate, resolveHost);
      const row = await inWriteTransaction(db, (w) => updateEndpoint(w, request.caller.tenantId, id, request.body));
      return { data: toEndpointResource(row) };
    },
  });

  app.delete('/v3/webhook_endpoints/:endpoint', {
    config: write,
    schema: { summary: 'Delete a webhook endpoint and its deliveries', tags: TAGS, params: EndpointParams },
    handler: async (request, reply) => {
      const id = endpointId(request.params.endpoint);
      await inWriteTransaction(db, (w) => deleteEndpoint(w, request.caller.tenantId, id));
      return reply.code(204).send();
    },
  });

  app.post('/v3/webhook_endpoints/:endpoint/rotate_secret', {
    config: { ...write, ...OPTIONAL_BODY },
    schema: {
      summary: 'Rotate the signing secret (shown once; the old one also signs for 24 hours)',
      tags: TAGS,
      params: EndpointParams,
      response: { 200: ResourceSchema(WebhookEndpointWithSecretSchema) },
    },
    handler: async (request) => {
      const id = endpointId(request.params.endpoint);
      const row = await inWriteTransaction(db, (w) => rotateSecret(w, request.caller.tenantId, id));
      return { data: { ...toEndpointResource(row), secret: row.secret } };
    },
  });

  app.get('/v3/webhook_endpoints/:endpoint/deliveries', {
    config: { ...write, ...listRouteConfig(deliveryListSpec, deliveryRepresentation) },
    schema: {
      summary: "List an endpoint's deliveries (status, attempts, last response code and latency)",
      tags: TAGS,
      params: EndpointParams,
      querystring: listQuerySchema(deliveryListSpec, deliveryRepresentation),
      response: { 200: EnvelopeSchema(DeliverySchema) },
    },
    handler: listHandler({
      lists,
      table: 'webhook_deliveries',
      spec: deliveryListSpec,
      publicUrl,
      representation: deliveryRepresentation,
      scopeOf: (request) => {
        const { endpoint } = request.params as { endpoint: string };
        return { tenantId: request.caller.tenantId, endpointId: endpointId(endpoint) };
      },
      // The endpoint is the tenant's, checked in the statement that reads its deliveries (one round trip on PostgreSQL).
      scopeGuard: (kysely, scope) =>
        rowGuard(kysely, 'webhook_endpoints', scope.tenantId, scope.endpointId as string, () => notFound(`No webhook endpoint ${scope.endpointId}.`)),
    }),
  });

  app.post('/v3/events/:event/resend', {
    config: { ...write, ...OPTIONAL_BODY },
    schema: {
      summary: 'Send an event again to every enabled endpoint that wants its type',
      tags: TAGS,
      params: EventParams,
      response: { 202: Type.Object({ data: Type.Array(DeliverySchema) }) },
    },
    handler: async (request, reply) => {
      const event = await findEvent(db, request.caller.tenantId, request.params.event);
      const rows = await inWriteTransaction(db, (w) => resendEvent(w, request.caller.tenantId, event));
      return reply.code(202).send({ data: rows.map(toDeliveryResource) });
    },
  });
}
