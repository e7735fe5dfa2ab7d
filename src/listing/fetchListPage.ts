import type { Kysely } from 'kysely';
import type { Database, Dialect } from '../db/schema.ts';
import { countedTotal, type CountedList } from '../counts/listCounts.ts';
import type { Boundary, BoundaryCache } from '../pagination/boundaryCache.ts';
import type { PageParams } from '../pagination/pageParams.ts';
import { boundaryOf } from './keyset.ts';
import { countSelect, DEFERRED_JOIN_FROM, hopSelect, pageSelect, SKIP_HOP, type ListScope, type ListTable, type PageStrategy } from './listPageQueries.ts';
import type { ListQuery } from './parseListQuery.ts';

export type { ListScope, PageStrategy } from './listPageQueries.ts';

export interface ListContext {
  db: Kysely<Database>;
  dialect: Dialect;
  boundaries: BoundaryCache;
}

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
 * The boundary (sort keys + id) of the row at position `offset` (1-based), reached in hops of at
 * most `hop` rows; null when the list is shorter. Run it in a transaction for an exact answer.
 */
export async function skipInHops(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, offset: number, hop = SKIP_HOP): Promise<Boundary | null> {
  let boundary: Boundary | undefined;
  for (let skipped = 0; skipped < offset; ) {
    const step = Math.min(hop, offset - skipped);
    const row = await hopSelect(db, table, scope, query, boundary, step).executeTakeFirst();
    if (!row) return null;
    boundary = boundaryOf(row as Record<string, unknown>, query.sort);
    skipped += step;
  }
  return boundary ?? null;
}

type Row = Record<string, unknown>;

/** A cold deep page on SQLite: hops to the page's start, then seeks, in one read transaction (so it equals OFFSET). */
function pageAfterHops(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, paging: PageParams): Promise<Row[]> {
  return db.transaction().execute(async (trx) => {
    const boundary = await skipInHops(trx, table, scope, query, paging.offset);
    if (boundary === null) return [];
    return (await pageSelect(trx, table, scope, query, paging, boundary).select.execute()) as Row[];
  });
}

/**
 * One page of a list and its exact total. The total comes from the maintained counts when the
 * query is a counted slice (all, one account, by status), else from count(*) on an index.
 * The rows come as listPageQueries.ts says (cold deep pages on SQLite in hops); each served page remembers its last row so that
 * a walker's next page is found by seek.
 */
export async function fetchListPage(
  ctx: ListContext,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
): Promise<{ total: number; rows: string[]; strategy: PageStrategy }> {
  const { db, boundaries } = ctx;
  const statuses = countedStatuses(query);
  const total =
    statuses !== undefined
      ? countedTotal(db, scope.tenantId, table as CountedList, scope.accountId ?? '', statuses)
      : countSelect(db, table, scope, query)
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.n));

  const key = pageKey(table, scope, query, paging.perPage);
  const previous = paging.page > 1 ? await boundaries.get(`${key}#${paging.page - 1}`) : undefined;
  let strategy: PageStrategy;
  let page: Promise<Row[]>;
  if (!previous && paging.offset >= DEFERRED_JOIN_FROM && ctx.dialect === 'sqlite') {
    strategy = 'skip-hops';
    page = pageAfterHops(db, table, scope, query, paging);
  } else {
    const chosen = pageSelect(db, table, scope, query, paging, previous);
    strategy = chosen.strategy;
    page = chosen.select.execute() as Promise<Row[]>;
  }
  const [rows, count] = await Promise.all([page, total]);
  if (rows.length > 0) await boundaries.set(`${key}#${paging.page}`, boundaryOf(rows[rows.length - 1], query.sort));
  return { total: count, rows: rows.map((r) => r.resource as string), strategy };
}
