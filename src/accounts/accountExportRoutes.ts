import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { exportHandler, exportRouteConfig, type ExportContext } from '../exports/exportHandler.ts';
import { exportResponses } from '../exports/exportResponses.ts';
import { filterAndSortSchema } from '../lists/index.ts';
import { accountListSpec } from './accountListSpec.ts';
import { AccountSchema } from './accountSchema.ts';

export function registerAccountExportRoutes(fastify: FastifyInstance, exports: ExportContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/v3/accounts/export', {
    config: { scope: 'read', ...exportRouteConfig(accountListSpec) },
    schema: {
      summary: 'Export accounts',
      description: 'Every account the list would show, streamed from one snapshot (docs/exports.md).',
      tags: ['accounts'],
      querystring: Type.Object(filterAndSortSchema(accountListSpec), { additionalProperties: true }),
      response: exportResponses(AccountSchema),
    },
    handler: exportHandler({
      table: 'accounts',
      spec: accountListSpec,
      exports,
      schema: AccountSchema,
      scopeOf: (request) => ({ tenantId: request.caller.tenantId }),
    }),
  });
}
