import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { guardsTogether, type StatementGuard } from '../db/guardedStatement.ts';
import { buildPageFrame } from './envelope/buildEnvelope.ts';
import { BodyBufferPool } from './envelope/bodyBufferPool.ts';
import { envelopeBody, EnvelopeWriter } from './envelope/envelopeBody.ts';
import { linkHeader } from './envelope/linkHeader.ts';
import type { PageParams } from './request/pageParams.ts';
import { requestOrigin } from './envelope/requestOrigin.ts';
import { fetchListPage, writeListPage, type ListContext } from './runListPage.ts';
import type { ListScope, ListTable } from './request/listScope.ts';
import type { PageStrategy } from './plan/listTuning.ts';
import type { ListSpec } from './request/listSpec.ts';
import type { SchemaError } from '../core/queryErrors.ts';
import { listSchemaFieldErrors, readListRequest, type RawListRequest } from './request/readListRequest.ts';
import type { RepresentationOffer } from '../representations/representationQuery.ts';
import { reshapeRows, rowTrimmer } from '../representations/reshapeRows.ts';
import { RowsInFlight } from './rowsInFlight.ts';
import { tenantRead } from './tenantReads.ts';

/** Pages from this size on share RowsInFlight; smaller ones never wait behind them. */
const BIG_PAGE_FROM = 1000;
/** Two 5000-row pages at a time per process: enough to keep the database and the event loop both busy. */
const bigPageRows = new RowsInFlight(10_000);
/** What a stored record usually takes (a payment ~520 bytes): the envelope's first buffer, grown when rows take more. */
const BYTES_PER_ROW = 600;
/** Big pages' buffers, used again once their response is sent (bodyBufferPool.ts); small pages allocate as usual. */
const bodyBuffers = new BodyBufferPool();

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on list routes (listRouteConfig): marks them as lists in the OpenAPI document. */
    listSpec?: ListSpec;
  }
}

/** A list route's config: its spec (the OpenAPI document reads it) and how its query errors are worded (all in one 422). */
export function listRouteConfig(spec: ListSpec, offer?: RepresentationOffer) {
  return {
    listSpec: spec,
    keyLeftToStatement: true,
    queryFieldErrors: (errors: readonly SchemaError[], query: unknown) => listSchemaFieldErrors(spec, offer, errors, query),
  };
}

/** What a list endpoint is: which table, with which filters and sorts, scoped how. */
export interface ListEndpoint {
  lists: ListContext;
  table: ListTable;
  spec: ListSpec;
  publicUrl: string | undefined;
  /** Whose rows the request lists (the caller's tenant, or one account of it); throws a problem when that cannot exist (a malformed id). */
  scopeOf(request: FastifyRequest): ListScope | Promise<ListScope>;
  /**
   * The row the scope names (an account, an endpoint) as a guard (db/rowGuard.ts), on the
   * database the list is read from: the page is answered only while that row is the tenant's,
   * checked by the statement that reads it where one statement does (else looked up first).
   * Absent for a tenant's whole list.
   */
  scopeGuard?(db: Kysely<Database>, scope: ListScope): StatementGuard;
  /** The `fields[…]` and `expand[]` the list takes (representationQuery.ts); none when absent. */
  representation?: RepresentationOffer;
}

/**
 * The handler every list endpoint shares: parse paging, filters and sort; fetch one page and
 * its total; wrap them in the envelope.
 */
export function listHandler(endpoint: ListEndpoint) {
  const { lists, table, spec, publicUrl, representation } = endpoint;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { paging, query, wanted } = readListRequest(spec, representation, request.query as RawListRequest);
    const scope = await endpoint.scopeOf(request);
    const big = paging.perPage >= BIG_PAGE_FROM;
    const release = big ? await bigPageRows.take(paging.perPage) : undefined;
    // The caller's key when not yet proven (auth/authenticate.ts), then the scope's row: a refused key answers before a missing row, as its lookup would.
    const guardOn = (db: Kysely<Database>) => guardsTogether(request.caller.unproven, endpoint.scopeGuard?.(db, scope));
    try {
      // Only a request naming fields or expand pays for reshaping; the rest send the stored text
      // as it is. Fieldsets alone trim each row as it comes; expansions load the page's together.
      const trim = wanted && representation ? rowTrimmer(representation, wanted) : undefined;
      if (wanted && representation && !trim) {
        const page = await tenantRead(lists.reads, lists.db, request, reply, (db) =>
          fetchListPage({ ...lists, db }, table, scope, query, paging, guardOn(db.kysely)),
        );
        const rows = await reshapeRows(representation, wanted, scope.tenantId, page.rows);
        const frame = pageFrame(request, reply, paging, page.total, rows.length, page.strategy);
        return reply.type('application/json; charset=utf-8').send(envelopeBody(rows, frame));
      }
      // The rows are JSON already; the envelope is written around them as they come (envelopeBody.ts).
      // Made anew if the read runs again on the primary (a replica failed it midway).
      const { page, body } = await tenantRead(lists.reads, lists.db, request, reply, async (db) => {
        const body = new EnvelopeWriter(paging.perPage * BYTES_PER_ROW, big ? bodyBuffers : undefined);
        try {
          const sink = trim ? (row: string) => body.add(trim(row)) : (row: string) => body.add(row);
          const page = await writeListPage({ ...lists, db }, table, scope, query, paging, sink, guardOn(db.kysely));
          return { page, body };
        } catch (error) {
          body.release();
          throw error;
        }
      });
      const frame = pageFrame(request, reply, paging, page.total, page.count, page.strategy);
      // 'finish': the last byte went to the socket (compressed or not, the ETag hashed a copy). A
      // response that never finishes (the client went away) leaves its buffer to the collector.
      if (big) reply.raw.once('finish', () => body.release());
      return reply.type('application/json; charset=utf-8').send(body.finish(frame));
    } finally {
      release?.();
    }
  };

  /** The page's `links` and `meta`, its Link header and how it was found. */
  function pageFrame(request: FastifyRequest, reply: FastifyReply, paging: PageParams, total: number, count: number, strategy: PageStrategy) {
    reply.header('x-page-strategy', strategy);
    const frame = buildPageFrame({
      origin: requestOrigin(request, publicUrl),
      pathAndQuery: request.url,
      total,
      page: paging.page,
      perPage: paging.perPage,
      count,
    });
    reply.header('link', linkHeader(frame.links));
    return frame;
  }
}
