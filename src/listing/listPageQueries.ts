import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Boundary } from '../pagination/boundaryCache.ts';
import type { PageParams } from '../pagination/pageParams.ts';
import { applyConditions, applyOrder } from './applyListQuery.ts';
import { afterBoundary } from './keyset.ts';
import type { ListQuery } from './parseListQuery.ts';

/**
 * The SQL of a list page, kept apart from running it so that the route, the query-plan test
 * (test/listing/queryPlans.e2e.test.ts) and `npm run explain` all look at the very same queries.
 */
export type ListTable = 'payments' | 'accounts';

export interface ListScope {
  tenantId: string;
  accountId?: string;
}

/** Below this offset OFFSET itself is cheapest; from here a cold page skips through the index only. */
export const DEFERRED_JOIN_FROM = 2000;

/**
 * SQLite cannot interrupt one statement, and an OFFSET of 900,000 is a single ~0.1 s step that
 * holds the event loop; a cold deep page there skips in hops of this many index entries (a few
 * ms each), and the driver yields between them. Smaller hops cost more statements: measured at
 * 1M rows, 10k hops took ~1.8× the single OFFSET's time, 50k ~1.4×, 100k ~1.2× (20 ms stalls).
 */
export const SKIP_HOP = 50_000;

/** How a page is found, for tests and benchmarks (`X-Page-Strategy`). */
export type PageStrategy = 'offset' | 'seek' | 'deferred-join' | 'skip-hops';

type AnySelect = SelectQueryBuilder<Database, 'payments', object>;

function scoped(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery) {
  let qb = db.selectFrom(table as 'payments').where('tenant_id', '=', scope.tenantId);
  if (scope.accountId !== undefined) qb = qb.where('account_id', '=', scope.accountId);
  return applyConditions(qb, query);
}

/** `select count(*)` of the matching rows: for the filter combinations no maintained count covers. */
export function countSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery) {
  return scoped(db, table, scope, query).select((eb) => eb.fn.countAll<number>().as('n'));
}

function sortColumns(query: ListQuery) {
  return [...new Set([...query.sort.map((k) => k.column), 'id'])] as Array<'id'>;
}

/** One hop of a skip: the sort keys and id of the row `skip` rows past `boundary` (or the start). */
export function hopSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, boundary: Boundary | undefined, skip: number) {
  let select = scoped(db, table, scope, query).select(sortColumns(query));
  if (boundary) select = select.where(afterBoundary(query.sort, boundary));
  return applyOrder(select, query).limit(1).offset(skip - 1);
}

/**
 * The rows of one page, each as its stored JSON and the sort-key columns the next page seeks
 * past: by seek when the previous page's last row is known, by a deferred join (ids from the
 * index, then rows) for cold deep pages, else by OFFSET.
 */
export function pageSelect(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
  previous: Boundary | undefined,
): { strategy: PageStrategy; select: AnySelect } {
  const output = ['resource', ...sortColumns(query)] as const;
  if (previous) {
    const select = scoped(db, table, scope, query).select(output).where(afterBoundary(query.sort, previous));
    return { strategy: 'seek', select: applyOrder(select, query).limit(paging.perPage) };
  }
  if (paging.offset >= DEFERRED_JOIN_FROM) {
    const ids = applyOrder(scoped(db, table, scope, query).select('id'), query).limit(paging.perPage).offset(paging.offset);
    const select = db.selectFrom(table as 'payments').select(output).where('id', 'in', ids);
    return { strategy: 'deferred-join', select: applyOrder(select, query) };
  }
  const select = applyOrder(scoped(db, table, scope, query).select(output), query).limit(paging.perPage).offset(paging.offset);
  return { strategy: 'offset', select };
}
