import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../core/problem.ts';
import { isIdOf } from '../core/resourceId.ts';
import { exportHandler, exportRouteConfig, type ExportContext } from '../exports/exportHandler.ts';
import { exportResponses } from '../exports/exportResponses.ts';
import { filterAndSortSchema } from '../lists/index.ts';
import { AccountParams } from '../accounts/accountRoutes.ts';
import { accountExists } from '../accounts/accountQueries.ts';
import { paymentListSpec } from './paymentListSpec.ts';
import { PaymentSchema } from './paymentSchema.ts';

export function registerPaymentExportRoutes(fastify: FastifyInstance, exports: ExportContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const schema = {
    tags: ['payments'],
    querystring: Type.Object(filterAndSortSchema(paymentListSpec), { additionalProperties: true }),
    response: exportResponses(PaymentSchema),
  };
  const common = { table: 'payments' as const, spec: paymentListSpec, exports, schema: PaymentSchema };

  app.get('/v3/payments/export', {
    config: { scope: 'read', ...exportRouteConfig(paymentListSpec) },
    schema: { summary: 'Export payments', description: 'Every payment the list would show, streamed from one snapshot (docs/exports.md).', ...schema },
    handler: exportHandler({ ...common, scopeOf: (request) => ({ tenantId: request.caller.tenantId }) }),
  });

  app.get('/v3/accounts/:account/payments/export', {
    config: { scope: 'read', ...exportRouteConfig(paymentListSpec) },
    schema: {
      summary: 'Export the payments of one account',
      description: 'Every payment of the account its list would show, streamed from one snapshot (docs/exports.md).',
      params: AccountParams,
      ...schema,
    },
    handler: exportHandler({
      ...common,
      scopeOf: async (request: FastifyRequest) => {
        const { account } = request.params as { account: string };
        const tenantId = request.caller.tenantId;
        if (!isIdOf('acc', account) || !(await accountExists(exports.db.kysely, tenantId, account))) throw notFound(`No account ${account}.`);
        return { tenantId, accountId: account };
      },
    }),
  });
}
