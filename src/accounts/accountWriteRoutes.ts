import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Db } from '../db/database.ts';
import { notFound, validationProblem } from '../core/problem.ts';
import { bodySchemaErrors } from '../core/schemaIssues.ts';
import { accountBodyProblems } from './accountBodyChecks.ts';
import { isIdOf } from '../core/resourceId.ts';
import { idempotentPost } from '../idempotency/sendWriteResult.ts';
import { inWriteTransaction } from '../db/writeTransaction.ts';
import { ResourceSchema } from '../lists/index.ts';
import { AccountParams } from './accountRoutes.ts';
import { toAccountResource } from './accountResource.ts';
import { AccountSchema } from './accountSchema.ts';
import { CreateAccountBody, UpdateAccountBody } from './accountWriteSchemas.ts';
import { createAccount, deleteAccount, updateAccount } from './accountWrites.ts';

export function registerAccountWriteRoutes(fastify: FastifyInstance, db: Db, secret: string): void {
  // Request and reply types come from the route schemas (TypeBox), never restated.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const accountId = (id: string) => {
    if (!isIdOf('acc', id)) throw notFound(`No account ${id}.`);
    return id;
  };

  app.post('/v3/accounts', {
    config: { scope: 'write' },
    schema: {
      summary: 'Create an account',
      tags: ['accounts'],
      body: CreateAccountBody,
      response: { 201: ResourceSchema(AccountSchema) },
    },
    // Schema problems reach the handler, to be listed with the currency's.
    attachValidation: true,
    handler: (request, reply) => {
      const errors = accountBodyProblems(request.body, bodySchemaErrors(request.validationError));
      if (Object.keys(errors).length > 0) throw validationProblem(errors);
      return idempotentPost(db, secret, request, reply, async (write) => {
        const row = await createAccount(write, request.caller.tenantId, request.body);
        return { status: 201, body: { data: toAccountResource(row) }, location: `/v3/accounts/${row.id}` };
      });
    },
  });

  app.patch('/v3/accounts/:account', {
    config: { scope: 'write' },
    schema: {
      summary: 'Change an account (name, email, status, metadata); close it with status=closed',
      tags: ['accounts'],
      params: AccountParams,
      body: UpdateAccountBody,
      response: { 200: ResourceSchema(AccountSchema) },
    },
    handler: async (request) => {
      const id = accountId(request.params.account);
      const row = await inWriteTransaction(db, (write) => updateAccount(write, request.caller.tenantId, id, request.body));
      return { data: toAccountResource(row) };
    },
  });

  app.delete('/v3/accounts/:account', {
    config: { scope: 'write' },
    schema: { summary: 'Delete an account without payments', tags: ['accounts'], params: AccountParams },
    handler: async (request, reply) => {
      const id = accountId(request.params.account);
      await inWriteTransaction(db, (write) => deleteAccount(write, request.caller.tenantId, id));
      return reply.code(204).send();
    },
  });
}
