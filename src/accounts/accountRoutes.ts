import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { notFound } from '../core/problem.ts';
import { isIdOf } from '../core/resourceId.ts';
import { listHandler, listRouteConfig, listQuerySchema, EnvelopeSchema, ResourceSchema, tenantRead } from '../lists/index.ts';
import type { ListContext } from '../lists/index.ts';
import { accountListSpec } from './accountListSpec.ts';
import { findAccount } from './accountQueries.ts';
import { answerSingleRead, singleReadRoute } from '../representations/sendStoredResource.ts';
import { accountRepresentation } from './accountRepresentation.ts';
import { AccountSchema } from './accountSchema.ts';

export const AccountParams = Type.Object({ account: Type.String() });

export function registerAccountRoutes(fastify: FastifyInstance, db: Db, lists: ListContext, publicUrl: string | undefined): void {
  // Request and reply types come from the route schemas (TypeBox), never restated.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const singleRead = singleReadRoute(accountRepresentation);
  app.get('/v3/accounts', {
    config: { scope: 'read', ...listRouteConfig(accountListSpec, accountRepresentation) },
    schema: {
      summary: 'List accounts',
      tags: ['accounts'],
      querystring: listQuerySchema(accountListSpec, accountRepresentation),
      response: { 200: EnvelopeSchema(AccountSchema) },
    },
    handler: listHandler({
      lists,
      table: 'accounts',
      spec: accountListSpec,
      publicUrl,
      representation: accountRepresentation,
      scopeOf: (request) => ({ tenantId: request.caller.tenantId }),
    }),
  });

  app.get('/v3/accounts/:account', {
    config: { scope: 'read', ...singleRead.config },
    schema: {
      summary: 'Get one account',
      tags: ['accounts'],
      params: AccountParams,
      querystring: singleRead.querystring,
      response: { 200: ResourceSchema(AccountSchema) },
    },
    handler: async (request, reply) =>
      answerSingleRead(reply, accountRepresentation, request.query, request.caller.tenantId, async () => {
        const id = request.params.account;
        const row = isIdOf('acc', id)
          ? await tenantRead(lists.reads, db, request, reply, (r) => findAccount(r.kysely, request.caller.tenantId, id))
          : undefined;
        if (!row) throw notFound(`No account ${id}.`);
        return row.resource;
      }),
  });
}
