import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database, Dialect } from '../db/schema.ts';
import { countedTotal, type CountedList } from '../counts/listCounts.ts';
import type { BoundaryCache } from '../pagination/boundaryCache.ts';
import type { PageParams } from '../pagination/pageParams.ts';
import { applyConditions, applyOrder } from './applyListQuery.ts';
import { afterBoundary, boundaryOf } from './keyset.ts';
import type { ListQuery } from './parseListQuery.ts';

export interface ListScope {
  tenantId: string;
  accountId?: string;
}

export interface ListContext {
  db: Kysely<Database>;
  dialect: Dialect;
  boundaries: BoundaryCache;
}

/** Below this offset OFFSET itself is cheapest; from here a cold page skips through the index only. */
export const DEFERRED_JOIN_FROM = 2000;

/** How a page was found, for tests and benchmarks (`X-Page-Strategy`). */
export type PageStrategy = 'offset' | 'seek' | 'deferred-join';

type ListTable = 'payments' | 'accounts';

/** The status values a query filters on, when status is its only filter (a counted slice). */
function countedStatuses(query: ListQuery): string[] | undefined {
  if (query.conditions.length === 0) return [];
  const [only] = query.conditions;
  if (query.conditions.length === 1 && only.column === 'status' && only.match === 'in') return only.values;
  return undefined;
}

/** The same query written in one canonical way, so equivalent requests share boundaries. */
function pageKey(table: ListTable, scope: ListScope, query: ListQuery, perPage: number): string {
  const conditions = query.conditions
    .map((c) => JSON.stringify(c.match === 'in' ? { ...c, values: [...c.values].sort() } : c))
    .sort();
  return JSON.stringify([scope.tenantId, table, scope.accountId ?? '', conditions, query.sort, perPage]);
}

/**
 * One page of a list and its exact total. The total comes from the maintained counts when the
 * query is a counted slice (all, one account, by status), else from count(*) on an index.
 * The rows come by seeking past the previous page's last row when a walker just read it, by a
 * deferred join (ids from the index, then rows) for cold deep pages, else by OFFSET.
 */
export async function fetchListPage(
  ctx: ListContext,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
): Promise<{ total: number; rows: string[]; strategy: PageStrategy }> {
  const { db, boundaries } = ctx;
  const scoped = () => {
    let qb = db.selectFrom(table as 'payments').where('tenant_id', '=', scope.tenantId);
    if (scope.accountId !== undefined) qb = qb.where('account_id', '=', scope.accountId);
    return applyConditions(qb, query);
  };

  const statuses = countedStatuses(query);
  const total =
    statuses !== undefined
      ? countedTotal(db, scope.tenantId, table as CountedList, scope.accountId ?? '', statuses)
      : scoped()
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.n));

  // Each row: its stored JSON representation, and the sort-key columns the next page seeks past.
  const sortColumns = [...new Set([...query.sort.map((k) => k.column), 'id'])] as Array<'id'>;
  const output = ['resource', ...sortColumns] as const;

  const key = pageKey(table, scope, query, paging.perPage);
  const previous = paging.page > 1 ? await boundaries.get(`${key}#${paging.page - 1}`) : undefined;
  let strategy: PageStrategy;
  let select: SelectQueryBuilder<Database, 'payments', object>;
  if (previous) {
    strategy = 'seek';
    select = applyOrder(scoped().select(output).where(afterBoundary(query.sort, previous)), query).limit(paging.perPage);
  } else if (paging.offset >= DEFERRED_JOIN_FROM) {
    strategy = 'deferred-join';
    const ids = applyOrder(scoped().select('id'), query).limit(paging.perPage).offset(paging.offset);
    select = applyOrder(db.selectFrom(table as 'payments').select(output).where('id', 'in', ids), query);
  } else {
    strategy = 'offset';
    select = applyOrder(scoped().select(output), query).limit(paging.perPage).offset(paging.offset);
  }
  const [rows, count] = (await Promise.all([select.execute(), total])) as [Array<Record<string, unknown>>, number];
  if (rows.length > 0) await boundaries.set(`${key}#${paging.page}`, boundaryOf(rows[rows.length - 1], query.sort));
  return { total: count, rows: rows.map((r) => r.resource as string), strategy };
}
