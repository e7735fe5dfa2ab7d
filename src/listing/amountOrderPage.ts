import { sql, type Kysely } from 'kysely';
import type { Database, Dialect } from '../db/schema.ts';
import { amountClassSortKey } from '../counts/amountClassBuckets.ts';
import type { BucketSegment, CoveredRange } from '../counts/rangeBuckets.ts';
import type { Condition, ListQuery } from '../listquery/parseListQuery.ts';
import { boundaryOf, type Boundary } from './keyset.ts';
import { afterBoundarySelect, boundedOn, countedTotalSelect, countSelect, hopSelect, type ListScope, type ListTable } from './listPageQueries.ts';
import { narrowedDimensions, sliceSql, type ListSlice } from './listSlice.ts';
import type { RangedTotal } from './rangedTotal.ts';
import { withRangesWritten } from './rangePlans.ts';
import {
  childClasses,
  classCoverage,
  classHolding,
  classReadsCost,
  COARSEST_CLASSES,
  edgeRowsIn,
  walkedEntries,
  type AmountClass,
  type ClassCoverage,
  type PlacedClass,
} from './amountOrderClasses.ts';

/** Whether a page of amount order is placed by the amount classes: by cost (default), or always or never (tests). */
export type ClassPlacement = 'cost' | 'always' | 'never';

/**
 * Whether a ranged list is a `created_at` range in amount order that the amount-class counts can
 * place (amountOrderClasses.ts): the whole list or one currency (the slices the classes are kept
 * for), sorted by `amount` alone, either direction.
 */
export function amountOrderPlaceable(table: ListTable, scope: ListScope, query: ListQuery, ranged: RangedTotal | undefined): boolean {
  if (table !== 'payments' || !ranged || ranged.column !== 'created_at' || ranged.kind !== 'tenant' || scope.accountId !== undefined) return false;
  if (query.sort.length !== 1 || query.sort[0].column !== 'amount') return false;
  const narrowed = narrowedDimensions(ranged.slice);
  return narrowed.length === 0 || (narrowed.length === 1 && narrowed[0] === 'currency' && ranged.slice.currency.length === 1);
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The range's rows outside the covered time buckets (at most two partly covered hours), by
 * amount, counted by the list's own conditions on the created_at index (which carries amount,
 * migration 0019). `query` is the list's, its range as a parameter or literal (indexable).
 */
async function edgeRows(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, covered: CoveredRange) {
  const column = sql.ref('created_at');
  const below = countSelect(db, table, scope, boundedOn(query, 'created_at', 'below'))
    .select('amount')
    .where(column, '<', iso(covered.low))
    .groupBy('amount');
  const sides = [await below.execute()];
  if (covered.high !== undefined) {
    const above = countSelect(db, table, scope, boundedOn(query, 'created_at', 'above'))
      .select('amount')
      .where(column, '>=', iso(covered.high))
      .groupBy('amount');
    sides.push(await above.execute());
  }
  return sides.flat().map((r) => ({ amount: Number(r.amount), n: Number(r.n) }));
}

/**
 * Each class's count over the runs of time buckets, by key: one union of index seeks (a class key
 * and a run each; runs joined by `or` are a scan on SQLite, see listPageQueries.ts bucketRunsSum).
 */
async function classCounts(db: Kysely<Database>, tenantId: string, slice: ListSlice, classes: readonly AmountClass[], segments: BucketSegment[]) {
  const keys = sql.join(classes.map((c) => amountClassSortKey(c.key)));
  const runs = segments.map((s) => {
    const from = s.from === undefined ? sql`` : sql` and bucket >= ${s.from}`;
    const to = s.to === undefined ? sql`` : sql` and bucket <= ${s.to}`;
    return sql`select sort_key, n from list_buckets
      where tenant_id = ${tenantId} and list = 'payments' and sort_key in (${keys}) and ${sliceSql(slice)} and level = ${sql.lit(s.level)}${from}${to}`;
  });
  const { rows } = await sql<{
    sort_key: string;
    n: number | string;
  }>`select sort_key, sum(n) as n from (${sql.join(runs, sql` union all `)}) r group by sort_key`.execute(db);
  return new Map(rows.map((r) => [r.sort_key.slice(amountClassSortKey('').length), Number(r.n)]));
}

/** A class's rows in the whole slice, any time: its coarsest level's buckets summed. */
async function classSliceRows(db: Kysely<Database>, tenantId: string, slice: ListSlice, cls: AmountClass): Promise<number> {
  const { rows } = await sql<{ n: number | string | null }>`select sum(n) as n from list_buckets
    where tenant_id = ${tenantId} and list = 'payments' and sort_key = ${amountClassSortKey(cls.key)} and ${sliceSql(slice)} and level = 0`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * The class holding row `at` of the range, read kind by kind (the digit classes, then the
 * children of the one found, …: a few dozen class keys in all rather than every finest class).
 */
async function placeInClasses(
  db: Kysely<Database>,
  tenantId: string,
  slice: ListSlice,
  coverage: ClassCoverage,
  edges: ReadonlyArray<{ amount: number; n: number }>,
  direction: 'asc' | 'desc',
  at: number,
): Promise<PlacedClass | undefined> {
  const deepest = coverage.finest ? 2 : 1;
  let classes: readonly AmountClass[] = COARSEST_CLASSES;
  let before = 0;
  for (let kind = 0; ; kind++) {
    const counts = await classCounts(db, tenantId, slice, classes, coverage.segments);
    const placed = classHolding(classes, (c) => (counts.get(c.key) ?? 0) + edgeRowsIn(edges, c), direction, at, before);
    // A class made of one finer class is that class (amounts below 10 have no two-digit classes).
    const children = placed && kind < deepest ? childClasses(kind, placed.cls) : [];
    if (!placed || children.length <= 1) return placed;
    classes = children;
    before = placed.before;
  }
}

/** The page's query from the class's start in list order: its amounts bounded on that side (the negative class and the last are open there). */
function fromClassStart(query: ListQuery, cls: AmountClass): ListQuery {
  const direction = query.sort[0].direction;
  const start: Condition | undefined =
    direction === 'asc'
      ? Number.isFinite(cls.first)
        ? { column: 'amount', match: 'range', op: 'gte', value: cls.first }
        : undefined
      : Number.isFinite(cls.end)
        ? { column: 'amount', match: 'range', op: 'lt', value: cls.end }
        : undefined;
  return start ? { ...query, conditions: [...query.conditions, start] } : query;
}

export interface AmountOrderRequest {
  table: ListTable;
  scope: ListScope;
  /** The list's query as its total was read (its range indexable): the edge rows are counted by it. */
  listQuery: ListQuery;
  /** The page's query in the order it is read (reversed when counted from the end). */
  query: ListQuery;
  ranged: RangedTotal;
  skip: number;
  limit: number;
  total: number;
  /** What the other way costs, in walked entries, when it is not the walk along the amount index (SQLite's sort of the range's index). */
  rival?: number;
}

/**
 * The page `limit` rows after `skip` of a created_at range in amount order (amountOrderPlaceable),
 * inside the caller's snapshot (a read transaction: the counts, the edge rows and the rows are one
 * reading): placed in its amount class, then skipped inside the class on the amount index, the
 * range tested on each entry (written so no index of created_at serves it). Undefined when the
 * row-by-row way costs less (walkedEntries against classReadsCost and the class's own walk), when
 * the range covers no whole hour, or when `placement` says never: the caller reads it that way.
 */
export async function amountOrderPage(db: Kysely<Database>, dialect: Dialect, request: AmountOrderRequest, placement: ClassPlacement = 'cost') {
  const { table, scope, listQuery, query, ranged, skip, limit, total, rival } = request;
  if (placement === 'never') return undefined;
  const bounds = listQuery.conditions.flatMap((c) => (c.match === 'range' && c.column === 'created_at' ? [{ op: c.op, value: c.value }] : []));
  const coverage = classCoverage(bounds);
  if (!coverage) return undefined;
  const { tenantId } = scope;
  // The row-by-row ways walk the amount index from the list's start; the descent's reads cost about classReadsCost before any row.
  const walk = rival ?? walkedEntries(skip, limit, Number((await countedTotalSelect(db, tenantId, table, ranged.slice).executeTakeFirstOrThrow()).n), total);
  if (placement === 'cost' && walk <= classReadsCost(coverage)) return undefined;
  const edges = await edgeRows(db, table, scope, listQuery, coverage.covered);
  const placed = await placeInClasses(db, tenantId, ranged.slice, coverage, edges, query.sort[0].direction, skip);
  if (!placed) return undefined;
  const inner = skip - placed.before;
  if (placement === 'cost' && walkedEntries(inner, limit, await classSliceRows(db, tenantId, ranged.slice, placed.cls), placed.rows) >= walk) return undefined;
  // Skipped and read along the amount index from the class's start, the range tested on each entry.
  const walked = withRangesWritten(query, dialect === 'sqlite' ? 'unindexed' : 'opaque');
  const fromStart = fromClassStart(walked, placed.cls);
  let boundary: Boundary | undefined;
  if (inner > 0) {
    const row = await hopSelect(db, table, scope, fromStart, undefined, inner).executeTakeFirst();
    if (!row) return undefined;
    boundary = boundaryOf(row as Record<string, unknown>, query.sort);
  }
  // Past the skipped row the class's bound is implied; left in, SQLite bounds the index by it rather than by the row (rangePlans.ts withStartSideUnindexed).
  const rows = await afterBoundarySelect(db, table, scope, boundary ? walked : fromStart, boundary, limit).execute();
  return rows.map((r) => r.resource);
}
