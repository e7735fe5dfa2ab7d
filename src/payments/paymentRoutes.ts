import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { notFound } from '../core/problem.ts';
import { isIdOf } from '../core/resourceId.ts';
import { listHandler, listRouteConfig, listQuerySchema, EnvelopeSchema, ResourceSchema, tenantRead } from '../lists/index.ts';
import type { ListContext } from '../lists/index.ts';
import { AccountParams } from '../accounts/accountRoutes.ts';
import { rowGuard } from '../db/rowGuard.ts';
import { paymentListSpec } from './paymentListSpec.ts';
import { findPayment } from './paymentQueries.ts';
import { answerSingleRead, singleReadRoute } from '../representations/sendStoredResource.ts';
import { paymentRepresentation } from './paymentRepresentation.ts';
import { PaymentSchema } from './paymentSchema.ts';

export function registerPaymentRoutes(fastify: FastifyInstance, db: Db, lists: ListContext, publicUrl: string | undefined): void {
  // Request and reply types come from the route schemas (TypeBox), never restated.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const representation = paymentRepresentation(db.kysely);
  const singleRead = singleReadRoute(representation);
  const listSchema = {
    tags: ['payments'],
    querystring: listQuerySchema(paymentListSpec, representation),
    response: { 200: EnvelopeSchema(PaymentSchema) },
  };

  app.get('/v3/payments', {
    config: { scope: 'read', ...listRouteConfig(paymentListSpec, representation) },
    schema: { summary: 'List payments', ...listSchema },
    handler: listHandler({
      lists,
      table: 'payments',
      spec: paymentListSpec,
      publicUrl,
      representation,
      scopeOf: (request) => ({ tenantId: request.caller.tenantId }),
    }),
  });

  app.get('/v3/accounts/:account/payments', {
    config: { scope: 'read', ...listRouteConfig(paymentListSpec, representation) },
    schema: { summary: 'List the payments of one account', params: AccountParams, ...listSchema },
    handler: listHandler({
      lists,
      table: 'payments',
      spec: paymentListSpec,
      publicUrl,
      representation,
      scopeOf: (request) => {
        const { account } = request.params as { account: string };
        if (!isIdOf('acc', account)) throw notFound(`No account ${account}.`);
        return { tenantId: request.caller.tenantId, accountId: account };
      },
      // The account is the tenant's, checked in the statement that reads its payments (one round trip on PostgreSQL).
      scopeGuard: (kysely, { tenantId, accountId }) => rowGuard(kysely, 'accounts', tenantId, accountId as string, () => notFound(`No account ${accountId}.`)),
    }),
  });

  app.get('/v3/payments/:payment', {
    config: { scope: 'read', ...singleRead.config },
    schema: {
      summary: 'Get one payment',
      tags: ['payments'],
      params: Type.Object({ payment: Type.String() }),
      querystring: singleRead.querystring,
      response: { 200: ResourceSchema(PaymentSchema) },
    },
    handler: async (request, reply) =>
      answerSingleRead(reply, representation, request.query, request.caller.tenantId, async () => {
        const id = request.params.payment;
        const row = isIdOf('pay', id)
          ? await tenantRead(lists.reads, db, request, reply, (r) => findPayment(r.kysely, request.caller.tenantId, id))
          : undefined;
        if (!row) throw notFound(`No payment ${id}.`);
        return row.resource;
      }),
  });
}
