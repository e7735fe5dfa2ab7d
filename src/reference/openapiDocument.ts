import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import { Type } from 'typebox';
import { apiDescription, apiVersion } from './apiDescription.ts';
import { accountExample, deliveryExample, eventExample, pageExample, paymentExample, requestExampleFor, webhookEndpointExample } from './examples.ts';
import { webhooksDescription } from './webhookDescriptions.ts';
import { flattenListQuery, styleRepresentationParameters } from './listParameters.ts';
import { csvColumnsOf } from '../representations/csvColumns.ts';
import { csvHeader, csvLine } from '../exports/csvText.ts';
import { AccountSchema } from '../accounts/accountSchema.ts';
import { PaymentSchema } from '../payments/paymentSchema.ts';
import { operationIdOf } from './operationId.ts';
import { hoistNamedSchemas, titleById } from './namedSchemas.ts';

const COMPONENTS = ['Account', 'Payment', 'Event', 'WebhookEndpoint', 'WebhookDelivery'];
import { ProblemSchema } from '../core/problemSchema.ts';
import { problemResponse, problemStatuses } from './problemResponses.ts';

export const OPENAPI_PATH = '/v3/openapi.json';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is free-form JSON
type Schema = Record<string, any>;

const IDEMPOTENCY_HEADER = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'Makes the POST safe to retry: the same key with the same request replays the first response (with Idempotent-Replayed: true) and creates nothing; with another request it is a 422. Kept 24 hours, per tenant.',
    }),
  ),
});
const CONDITIONAL_HEADER = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'An ETag you hold: 304 Not Modified when the representation is unchanged' })),
});

const ETAG = { description: 'Strong validator of this representation (differs per Content-Encoding)', type: 'string' };
const LINK = { description: 'RFC 8288 links first, prev, next, last: the same URLs as `links` in the body', type: 'string' };
const LOCATION = { description: 'Path of the created resource', type: 'string' };
const REPLAYED = { description: '`true` when this is the replay of an earlier request with the same Idempotency-Key', type: 'string' };

/** What `/health` and `/ready` answer (not resources: their own small bodies). */
const OPERATION_EXAMPLES: Record<string, unknown> = { '/health': { status: 'ok' }, '/ready': { status: 'ready' } };

/** The resource a route's example shows, read off its path. */
function exampleItem(url: string, method: string): object {
  if (url.endsWith('/deliveries') || url.endsWith('/resend')) return deliveryExample;
  if (url.includes('webhook_endpoints'))
    return method === 'POST' ? { ...webhookEndpointExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } : webhookEndpointExample;
  if (url.includes('events')) return eventExample;
  return url.includes('payments') ? paymentExample : accountExample;
}

function exampleFor(url: string, method: string, list: boolean): unknown {
  if (Object.hasOwn(OPERATION_EXAMPLES, url)) return OPERATION_EXAMPLES[url];
  const item = exampleItem(url, method);
  if (url.endsWith('/resend')) return { data: [item] };
  return list ? pageExample(url.replace(':account', accountExample.id).replace(':endpoint', webhookEndpointExample.id), item) : { data: item };
}

/** Success responses in the `content` form: the route's schema plus an example and headers. */
function successResponses(route: RouteOptions, schema: Schema, list: boolean): Schema {
  const method = String(route.method);
  const out: Schema = {};
  for (const [status, body] of Object.entries((schema.response ?? {}) as Schema)) {
    if (status.startsWith('3')) {
      out[status] = { description: body.description, type: 'null', headers: { location: { description: 'Where the document is', type: 'string' } } };
      continue;
    }
    const headers: Schema = {};
    if (method === 'GET') headers.etag = ETAG;
    if (list) headers.link = LINK;
    if (status === '201') headers.location = LOCATION;
    if (method === 'POST') headers['idempotent-replayed'] = REPLAYED;
    out[status] = {
      description: status === '201' ? 'Created' : status === '202' ? 'Accepted' : 'OK',
      headers,
      content: { 'application/json': { schema: titleById(body, COMPONENTS), example: body.examples?.[0] ?? exampleFor(route.url, method, list) } },
    };
  }
  if (method === 'DELETE') out['204'] = { description: 'Deleted', type: 'null' };
  if (method === 'GET' && route.config?.scope) out['304'] = { description: 'Not Modified: your If-None-Match still matches', type: 'null' };
  return out;
}

/** An export's 200 as the route declares it (exportResponses.ts), with one record of each format as the example. */
function exportSuccess(url: string, schema: Schema): Schema {
  const item = url.includes('payments') ? paymentExample : accountExample;
  const resource = JSON.stringify(item);
  const columns = csvColumnsOf(url.includes('payments') ? PaymentSchema : AccountSchema);
  const examples: Record<string, string> = {
    'application/x-ndjson': `${resource}\n${JSON.stringify({ export: { complete: true, count: 1 } })}\n`,
    'text/csv': `${csvHeader(columns)}${csvLine(columns, resource)}`,
  };
  const ok = (schema.response as Schema)[200] as Schema;
  const content = Object.fromEntries(Object.entries(ok.content as Schema).map(([type, media]) => [type, { ...(media as Schema), example: examples[type] }]));
  return { 200: { ...ok, content } };
}

/** Turns a route's validation schema into its documentation (only the document sees this). */
function documentRoute({ schema, url, route }: { schema: Schema; url: string; route: RouteOptions }) {
  const method = String(route.method);
  const scope = route.config?.scope;
  const list = Boolean(route.config?.listSpec);
  // Exports take a list's filters and sort, and document their own 200 (NDJSON or CSV, exportResponses.ts).
  const exported = Boolean(route.config?.exportSpec);
  const docs: Schema = { ...schema, operationId: (schema.operationId as string | undefined) ?? operationIdOf(method, url, list) };
  docs.security = scope ? [{ bearerAuth: [] }] : [];
  if (scope) docs.description = [schema.description, `Needs an API key with the \`${scope}\` scope.`].filter(Boolean).join('\n\n');
  // Single reads take `fields[…]`/`expand[]` too: documented by the same wire names.
  if (list || exported || schema.querystring) docs.querystring = flattenListQuery(schema.querystring);
  if (method === 'POST') docs.headers = IDEMPOTENCY_HEADER;
  // "Try it out" fills the body with its example: one that succeeds as it stands (test cards).
  const requestExample = requestExampleFor(method, url);
  if (schema.body && requestExample) docs.body = { ...schema.body, examples: [requestExample] };
  if (method === 'GET' && scope) docs.headers = CONDITIONAL_HEADER;
  if (route.config?.deprecation) docs.deprecated = true;
  docs.response = exported ? exportSuccess(route.url, schema) : successResponses(route, schema, list);
  const shape = {
    method,
    authenticated: Boolean(scope),
    hasPathParams: url.includes(':'),
    hasQuery: list || exported || Boolean(schema.querystring),
    negotiated: exported,
    hasBody: Boolean(schema.body),
  };
  if (url.startsWith('/v3/') && url !== OPENAPI_PATH)
    for (const status of problemStatuses(shape)) docs.response[status] = problemResponse(status, { url, scope });
  if (url === OPENAPI_PATH)
    docs.response = { 200: { description: 'This document', headers: { etag: ETAG }, content: { 'application/json': { schema: { type: 'object' } } } } };
  if (url === '/ready') docs.response[503] = problemResponse(503);
  if (url === '/metrics') {
    const example =
      '# HELP http_requests_total HTTP requests answered, by route pattern, method and status class\n# TYPE http_requests_total counter\nhttp_requests_total{method="GET",route="/v3/payments",status_class="2xx"} 42\n';
    docs.response = {
      200: { description: 'Prometheus text exposition format (version 0.0.4)', content: { 'text/plain': { schema: { type: 'string' }, example } } },
    };
  }
  return { schema: docs, url };
}

/**
 * Registers @fastify/swagger (before any route, so it sees them all) and serves the document at
 * /v3/openapi.json. The document is generated from the routes' own TypeBox schemas.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Accounts & Payments API', version: apiVersion(), description: apiDescription() },
      tags: [
        { name: 'accounts', description: 'Customer accounts' },
        { name: 'payments', description: 'Credit card payments' },
        { name: 'events', description: 'Every change to an account or a payment, as it happened' },
        { name: 'webhooks', description: 'Endpoints that receive events, signed per Standard Webhooks; their deliveries' },
        { name: 'operations', description: 'Liveness, readiness and this document' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: `Authorization: Bearer apk_…`. Keys belong to one tenant and carry the scopes read and/or write.',
          },
        },
      },
    },
    transform: documentRoute as never,
    transformObject: (({ openapiObject }: { openapiObject: object }) => ({
      ...styleRepresentationParameters(hoistNamedSchemas(openapiObject as never, COMPONENTS)),
      webhooks: webhooksDescription('#/components/schemas/Event'),
    })) as never,
    // Schemas with an $id (Problem) keep their name in components instead of def-N.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  app.get(OPENAPI_PATH, { schema: { summary: 'This OpenAPI 3.1 document', tags: ['operations'] } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );
}
