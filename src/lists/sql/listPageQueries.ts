import { sql, type Expression, type Kysely, type QueryCreator, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { applyConditions, applyOrder } from './applyListQuery.ts';
import { afterBoundary, type Boundary } from './keyset.ts';
import type { ListSlice } from '../plan/listSlice.ts';
import { DIMENSIONS, isCountedList } from '../counters/countedSlices.ts';
import { liveBucketRows, tailCountSql } from '../counters/changeTail.ts';
import { dialectOf } from '../../db/dialectOf.ts';
import type { RangedTotal } from '../plan/rangedTotal.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import { totalOrder } from '../plan/totalOrder.ts';

/**
 * The SQL of a list page, kept apart from running it so that the route, the query-plan test
 * (test/lists/queryPlans.e2e.test.ts) and `npm run explain` all look at the very same queries.
 */
export type { ListScope, ListTable } from '../request/listScope.ts';

/**
 * A page's LIMIT as an expression, not a bare parameter: SQLite's planner reads a bare `?` LIMIT
 * and marks the statement to be re-prepared whenever that parameter is bound again, that is on
 * every call (measured: 2.6 ms of re-preparing per deep page, against 0.09 ms to run it).
 */
function rowLimit(limit: number) {
  return sql<number>`(${limit} + 0)`;
}

/** A page's rows, each as its stored JSON. */
type PageSelect = SelectQueryBuilder<Database, 'payments', { resource: string }>;

/**
 * The tenant's rows. A metadata search that drives from its entries keeps its tenant check out of the tenant's own
 * indexes: SQLite, with no statistics, would otherwise walk every row of the tenant testing each against the
 * entries (decision 0020). A search written to probe row by row (metadataPlans.ts) walks the tenant's index.
 */
function tenantColumn(query: ListQuery) {
  return query.conditions.some((c) => c.match === 'metadata' && c.written === undefined)
    ? sql<string>`(${sql.ref('tenant_id')} || '')`
    : sql.ref<string>('tenant_id');
}

function scoped(db: QueryCreator<Database>, table: ListTable, scope: ListScope, query: ListQuery) {
  let qb = db.selectFrom(table as 'payments').where(tenantColumn(query), '=', scope.tenantId);
  if (scope.accountId !== undefined) qb = qb.where('account_id', '=', scope.accountId);
  if (scope.endpointId !== undefined) qb = qb.where(sql.ref('endpoint_id'), '=', scope.endpointId);
  return applyConditions(qb, query, scope.tenantId);
}

/** `select count(*) as n` of the matching rows: for the filter combinations no maintained count covers. */
export function countSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery) {
  return scoped(db, table, scope, query).select((eb) => eb.fn.countAll<number>().as('n'));
}

/** The exact total of a counted slice from list_counts, as `n` (several values of a dimension add up). */
export function countedTotalSelect(db: Kysely<Database>, tenantId: string, table: ListTable, slice: ListSlice) {
  let kept = db.selectFrom('list_counts').select(sql<number>`coalesce(sum(n), 0)`.as('n')).where('tenant_id', '=', tenantId).where('list', '=', table);
  for (const d of DIMENSIONS) kept = kept.where(d, 'in', slice[d]);
  // The changes not folded yet, added in the same statement (changeTail.ts).
  const tail = isCountedList(table) ? tailCountSql(dialectOf(db), tenantId, table, slice) : sql<number>`0`;
  return db.selectNoFrom(sql<number>`(${kept}) + ${tail}`.as('n'));
}

/**
 * The exact total of a counted slice narrowed by a range of a bucketed column, as `n`, without
 * counting its rows (rangedTotal.ts): the slice's bucket counts wholly inside the range, a run of
 * buckets per level, plus the matching rows below and past them, counted by the list's own
 * conditions on the slice's index (two short range scans: the partly covered finest buckets).
 */
export function rangedTotalSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, ranged: RangedTotal) {
  return db.selectNoFrom(rangedTotalOver(db, table, scope, query, ranged, bucketRunsSum(db, scope, ranged, ranged.segments)).as('n'));
}

/** The same total as an expression, over the covered buckets' sum `buckets` read elsewhere (rangeShareSelect's `covered`). */
export function rangedTotalOver(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, ranged: RangedTotal, buckets: Expression<number>) {
  const column = sql.ref(ranged.column);
  const below = countSelect(db, table, scope, boundedOn(query, ranged.column, 'below')).where(column, '<', ranged.low);
  const past =
    ranged.high === undefined
      ? sql<number>`0`
      : sql<number>`(${countSelect(db, table, scope, boundedOn(query, ranged.column, 'above')).where(column, '>=', ranged.high)})`;
  return sql<number>`${buckets} + (${below}) + ${past}`;
}

/**
 * The query's conditions for counting the range's rows on one side of its covered buckets: below
 * them (`< low`) every upper bound of the range is implied (the covered buckets lie inside it), and
 * above them (`>= high`) every lower bound. Left in, they cost SQLite a scan of the whole range:
 * it bounds an index range by one lower and one upper condition on a column, and picked the
 * range's own `gte`/`lt` (a month: 16,667 index entries, 151 ms at 100k) over the edge's.
 */
export function boundedOn(query: ListQuery, column: string, side: 'below' | 'above'): ListQuery {
  const implied = side === 'below' ? ['lt', 'lte'] : ['gt', 'gte'];
  return { ...query, conditions: query.conditions.filter((c) => !(c.match === 'range' && c.column === column && implied.includes(c.op))) };
}

/** The sum of a slice's bucket counts over runs of buckets (one per level at most twice), the unfolded changes' included. */
function bucketRunsSum(db: Kysely<Database>, scope: ListScope, ranged: RangedTotal, segments: RangedTotal['segments']) {
  if (segments.length === 0) return sql<number>`0`;
  // One sum per run: SQLite reads `level = … and bucket between …` as one index range, but runs
  // joined by `or` as a scan of every bucket the tenant has for the column (~110 ms at 100k).
  const runs = segments.map((s) => {
    const from = s.from === undefined ? sql`true` : sql`bucket >= ${s.from}`;
    const to = s.to === undefined ? sql`true` : sql`bucket <= ${s.to}`;
    const rows = liveBucketRows(dialectOf(db), scope.tenantId, ranged.column, s.level, ranged.slice, sql`${from} and ${to}`);
    return sql`(select coalesce(sum(n), 0) from ${rows} as b)`;
  });
  return sql<number>`(${sql.join(runs, sql` + `)})`;
}

/**
 * The rows of `query` per bucket of a created_at level (`bucket`: its SQL), each bucket as one
 * instant in it (`created_at`) and its rows times `sign` (`n`): an amount sliver's rows, which a
 * descent adds to or takes from the classes' counts (findInBuckets.ts). Read in the range's
 * amount index alone, which carries created_at (migration 0026).
 */
export function signedRowsPerBucketSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, bucket: string, sign: 1 | -1) {
  return scoped(db, table, scope, query)
    .select([sql<string>`min(created_at)`.as('created_at'), sql<number>`count(*) * ${sql.lit(sign)}`.as('n')])
    .groupBy(sql.raw(bucket));
}

/**
 * How many rows of the slice come before the range in `direction` (the range's column first in
 * the sort), as `n`: ascending, the slice's rows below the covered start (its buckets there,
 * open below) less the range's own rows there; descending, the slice's rows from the covered end
 * on less the range's own rows there (none without an upper end: every row above is in range).
 */
export function rowsBeforeRangeSelect(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  ranged: RangedTotal,
  direction: 'asc' | 'desc',
) {
  const column = sql.ref(ranged.column);
  if (direction === 'asc') {
    const inRange = countSelect(db, table, scope, boundedOn(query, ranged.column, 'below')).where(column, '<', ranged.low);
    return db.selectNoFrom(sql<number>`${bucketRunsSum(db, scope, ranged, ranged.below)} - (${inRange})`.as('n'));
  }
  if (ranged.high === undefined) return db.selectNoFrom(sql<number>`0`.as('n'));
  const inRange = countSelect(db, table, scope, boundedOn(query, ranged.column, 'above')).where(column, '>=', ranged.high);
  return db.selectNoFrom(sql<number>`${bucketRunsSum(db, scope, ranged, ranged.above)} - (${inRange})`.as('n'));
}

/**
 * What a ranged list's page chooses its plan from (rangePlans.ts): the slice's total
 * (`slice`, list_counts) and its rows in the buckets wholly inside the range (`covered`, a lower
 * bound of the range's rows). A few count rows: read inline.
 */
export function rangeShareSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, ranged: RangedTotal) {
  return db.selectNoFrom([
    sql<number>`(${countedTotalSelect(db, scope.tenantId, table, ranged.slice)})`.as('slice'),
    sql<number>`${bucketRunsSum(db, scope, ranged, ranged.segments)}`.as('covered'),
  ]);
}

function sortColumns(query: ListQuery) {
  return [...new Set([...query.sort.map((k) => k.column), 'id'])] as Array<'id'>;
}

/** One hop of a skip: the sort keys and id of the row `skip` rows past `boundary` (or the start). */
export function hopSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, boundary: Boundary | undefined, skip: number) {
  let select = scoped(db, table, scope, query).select(sortColumns(query));
  if (boundary) select = select.where(afterBoundary(query.sort, boundary));
  return applyOrder(select, query)
    .limit(sql.lit(1))
    .offset(skip - 1);
}

/** `limit` rows after the row `boundary` names (the end of a skip in hops), or from the start without one. */
export function afterBoundarySelect(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  boundary: Boundary | undefined,
  limit: number,
): PageSelect {
  let select = scoped(db, table, scope, query).select('resource');
  if (boundary) select = select.where(afterBoundary(query.sort, boundary));
  return applyOrder(select, query).limit(rowLimit(limit)) as PageSelect;
}

/** Every row of the list in its order, each as its stored JSON: what an export streams (one COPY on PostgreSQL). */
export function wholeListSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery): PageSelect {
  return applyOrder(scoped(db, table, scope, query).select('resource'), query) as PageSelect;
}

/** `limit` rows after `skip` rows, by OFFSET: each row as its stored JSON. */
export function offsetPageSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, skip: number, limit: number): PageSelect {
  return applyOrder(scoped(db, table, scope, query).select('resource'), query)
    .limit(rowLimit(limit))
    .offset(skip) as PageSelect;
}

/**
 * `limit` rows after `skip` rows, by OFFSET, as their sort keys and id alone: what a sort needs to
 * place them, which an index can carry (PostgreSQL reads it in the index alone, no table row).
 */
export function offsetKeysSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, skip: number, limit: number) {
  return applyOrder(scoped(db, table, scope, query).select(sortColumns(query)), query)
    .limit(rowLimit(limit))
    .offset(skip);
}

/**
 * PostgreSQL: the row `id` names, as its stored JSON, for a LATERAL join from a page's keys: a
 * lookup by primary key per key in any plan. The LIMIT keeps PostgreSQL from pulling the lookup up
 * into a join it may plan by hash over the whole table (a generic plan prices a parameter LIMIT
 * at a tenth of its input's rows); `id` is the key, so it drops no row.
 */
export function rowByIdSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, id: Expression<string>) {
  // The tenant again: a statement that names its tenant on every table is routed to one shard on Citus (docs/scaling.md).
  return db
    .selectFrom(table as 'payments')
    .select('resource')
    .where(sql.ref('tenant_id'), '=', scope.tenantId)
    .where(sql.ref('id'), '=', id)
    .limit(sql.lit(1));
}

/**
 * The same rows, the ids skipped through the index alone, then only the page's rows read
 * (PostgreSQL). The LIMIT is written into the text (per_page is a small whole number): the
 * service's plans are generic (sessionSettings.ts), and a generic plan takes a parameter LIMIT
 * for a tenth of the rows, so it read the whole table to join it with "70,000" ids by hash
 * (1.5 s for a page at 90 % of `amount ≥ 1000` at 1M payments, against 0.1 s for the skip).
 */
export function deferredJoinPageSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, skip: number, limit: number): PageSelect {
  return pageOfIds(db, table, scope, query, sql.lit(limit), skip, sql.ref('tenant_id'));
}

/**
 * SQLite: the same rows, their ids sorted in an index alone, then only the page's rows read: a
 * page read from a range's index and sorted (rangePlans.ts), which carries the sort's column
 * (migrations 0019, 0026). Selecting the rows whole, SQLite sorts every row in range with its
 * stored resource (page 1 of `amount ≤ 100`, 596 of 1M payments: 2.3 ms, against 0.15 ms so).
 */
export function sortedIdsPageSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, skip: number, limit: number): PageSelect {
  // The outer tenant written `+tenant_id`: else SQLite walks the tenant's index testing each row's
  // id against the page's (300 ms at 1M payments) rather than read the page's ids by primary key.
  return pageOfIds(db, table, scope, query, rowLimit(limit), skip, sql`+tenant_id`);
}

/** SQLite: every row of the list as sortedIdsPageSelect reads a page (their ids sorted in an index alone, then the rows by id): an export's keyed plan (keyedFilters.ts). */
export function sortedIdsListSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery): PageSelect {
  // LIMIT -1: SQLite's "no limit" (an OFFSET needs a LIMIT before it).
  return pageOfIds(db, table, scope, query, sql<number>`-1`, 0, sql`+tenant_id`);
}

function pageOfIds(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  limit: Expression<number>,
  skip: number,
  tenant: Expression<string>,
): PageSelect {
  const ids = applyOrder(scoped(db, table, scope, query).select('id'), query)
    .limit(limit)
    .offset(skip);
  // The tenant again on the outer read: the ids are the tenant's already, but a statement that
  // names its tenant on every table is routed to one shard on Citus (docs/scaling.md).
  const select = db
    .selectFrom(table as 'payments')
    .select('resource')
    .where(tenant, '=', scope.tenantId)
    .where('id', 'in', ids);
  return applyOrder(select, query) as PageSelect;
}

/** Where a bucket starts in the list's order: the first sort key `>=` its low value (ascending) or `<` its high value (descending). */
export interface BucketStart {
  column: string;
  op: '>=' | '<';
  value: string | number | Expression<unknown>;
}

/**
 * The page a bucket descent places, inside the same statement: its first row found in the index alone (an
 * index-only skip inside one small bucket), then the page read by a row comparison on that index, so skipped rows
 * cost no table visit (decisions 0003, 0015). Mixed-direction sorts skip by OFFSET on rows; without `start`, a
 * first page's OFFSET in the index alone. `rows(outer)` builds the rows' select on `outer`, which may carry CTEs.
 */
export function pageFromRowSelect(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  start: BucketStart | undefined,
  skip: Expression<number>,
  limit: number,
  skipQuery: ListQuery = query,
) {
  const order = totalOrder(query.sort);
  const atStart = (from: QueryCreator<Database>, q: ListQuery = query) => {
    const rows = scoped(from, table, scope, q);
    return start ? rows.where(sql.ref(start.column), start.op, start.value as string) : rows;
  };
  if (!order.every((k) => k.direction === order[0].direction)) {
    return {
      ctes: [],
      rows: (outer: QueryCreator<Database> = db) => applyOrder(atStart(outer).select('resource'), query).limit(rowLimit(limit)).offset(skip) as PageSelect,
    };
  }
  // The skip counts the rows `skipQuery` lists (a ranged list's slice: the descent placed a row of it).
  const first = applyOrder(atStart(db, skipQuery).select(sortColumns(query)), query)
    .limit(sql.lit(1))
    .offset(skip);
  const columns = order.map((k) => sql.ref(k.column));
  const values = order.map((k) => sql`(select ${sql.ref(k.column)} from b)`);
  const op = sql.raw(order[0].direction === 'asc' ? '>=' : '<=');
  const rows = (outer: QueryCreator<Database> = db) =>
    applyOrder(
      scoped(outer, table, scope, query)
        .select('resource')
        .where(sql<boolean>`(${sql.join(columns)}) ${op} (${sql.join(values)})`),
      query,
    ).limit(rowLimit(limit)) as PageSelect;
  return { ctes: [{ name: 'b', expression: first }], rows };
}
