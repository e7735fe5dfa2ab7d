import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildPageFrame } from '../pagination/buildEnvelope.ts';
import { envelopeBody } from '../pagination/envelopeBody.ts';
import { linkHeader } from '../pagination/linkHeader.ts';
import { parsePageParams, type PageParams } from '../pagination/pageParams.ts';
import { requestOrigin } from './requestOrigin.ts';
import { fetchListPage, type ListContext, type ListPage, type ListScope, type ListTable } from './fetchListPage.ts';
import type { ListSpec } from './listSpec.ts';
import { parseListQuery, type RawListQuery } from './parseListQuery.ts';
import { listQueryFieldErrors } from './queryErrors.ts';
import { RowsInFlight } from './rowsInFlight.ts';

/** Pages from this size on share RowsInFlight; smaller ones never wait behind them. */
const BIG_PAGE_FROM = 1000;
/** Two 5000-row pages at a time per process (measured in docs/performance.md, Per-request cost). */
const bigPageRows = new RowsInFlight(10_000);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on list routes (listRouteConfig): marks them as lists in the OpenAPI document. */
    listSpec?: ListSpec;
  }
}

/** A list route's config: its spec (the OpenAPI document reads it) and how its query errors are worded. */
export function listRouteConfig(spec: ListSpec) {
  return { listSpec: spec, queryFieldErrors: (errors: Parameters<typeof listQueryFieldErrors>[1]) => listQueryFieldErrors(spec, errors) };
}

/** What a list endpoint is: which table, with which filters and sorts, scoped how. */
export interface ListEndpoint {
  lists: ListContext;
  table: ListTable;
  spec: ListSpec;
  publicUrl: string | undefined;
  /** Whose rows the request lists (the caller's tenant, or one account of it); throws a problem when that does not exist. */
  scopeOf(request: FastifyRequest): ListScope | Promise<ListScope>;
}

/**
 * The handler every list endpoint shares: parse paging, filters and sort; fetch one page and
 * its total; wrap them in the envelope.
 */
export function listHandler(endpoint: ListEndpoint) {
  const { lists, table, spec, publicUrl } = endpoint;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.query as RawListQuery & { page?: string; per_page?: string };
    const paging = parsePageParams(raw);
    const query = parseListQuery(spec, raw);
    const scope = await endpoint.scopeOf(request);
    const release = paging.perPage >= BIG_PAGE_FROM ? await bigPageRows.take(paging.perPage) : undefined;
    try {
      return sendPage(request, reply, paging, await fetchListPage(lists, table, scope, query, paging));
    } finally {
      release?.();
    }
  };

  function sendPage(request: FastifyRequest, reply: FastifyReply, paging: PageParams, { total, rows, strategy }: ListPage) {
    reply.header('x-page-strategy', strategy);
    const frame = buildPageFrame({
      origin: requestOrigin(request, publicUrl),
      pathAndQuery: request.url,
      total,
      page: paging.page,
      perPage: paging.perPage,
      count: rows.length,
    });
    reply.header('link', linkHeader(frame.links));
    // The rows are JSON already; the envelope is written around them (envelopeBody.ts).
    return reply.type('application/json; charset=utf-8').send(envelopeBody(rows, frame));
  }
}
