import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildEnvelope } from '../pagination/buildEnvelope.ts';
import { envelopeJson } from '../pagination/envelopeJson.ts';
import { linkHeader } from '../pagination/linkHeader.ts';
import { parsePageParams, type PageParams } from '../pagination/pageParams.ts';
import { requestOrigin } from '../http/requestOrigin.ts';
import type { ListSpec } from './listSpec.ts';
import { parseListQuery, type ListQuery, type RawListQuery } from './parseListQuery.ts';

export type { ListPage as PageOfRows } from './fetchListPage.ts';
import type { ListPage } from './fetchListPage.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on list routes: lets the error renderer name bad filters and sorts precisely. */
    listSpec?: ListSpec;
  }
}

/**
 * The handler shape every list endpoint shares: parse paging, filters and sort; fetch one
 * page and its total; wrap them in the envelope.
 */
export function listHandler(
  spec: ListSpec,
  publicUrl: string | undefined,
  fetchPage: (request: FastifyRequest, query: ListQuery, paging: PageParams) => Promise<ListPage>,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.query as RawListQuery & { page?: string; per_page?: string };
    const paging = parsePageParams(raw);
    const query = parseListQuery(spec, raw);
    const { total, rows, strategy } = await fetchPage(request, query, paging);
    reply.header('x-page-strategy', strategy);
    const envelope = buildEnvelope({
      origin: requestOrigin(request, publicUrl),
      pathAndQuery: request.url,
      total,
      page: paging.page,
      perPage: paging.perPage,
      rows,
    });
    reply.header('link', linkHeader(envelope.links));
    // The rows are JSON already; the envelope around them is the compiled contract (see envelopeJson.ts).
    return reply.type('application/json; charset=utf-8').send(envelopeJson(envelope));
  };
}
