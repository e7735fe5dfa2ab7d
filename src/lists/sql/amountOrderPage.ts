import { sql, type Expression, type Kysely, type QueryCreator } from 'kysely';
import type { Database, Dialect } from '../../db/schema.ts';
import { amountClassSortKey } from '../counters/amountClassBuckets.ts';
import { liveBucketRows } from '../counters/changeTail.ts';
import { dialectOf } from '../../db/dialectOf.ts';
import type { BucketSegment, CoveredRange } from '../counters/rangeBuckets.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import { boundedOn, countedTotalSelect, countSelect, pageFromRowSelect, type BucketStart, type ListScope, type ListTable } from './listPageQueries.ts';
import type { ListSlice } from '../plan/listSlice.ts';
import type { RangedTotal } from '../plan/rangedTotal.ts';
import { withRangesWritten } from '../plan/rangePlans.ts';
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
} from '../plan/amountOrderClasses.ts';
import type { ClassPlacement } from '../plan/amountOrderClasses.ts';

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
 * Each class's count over the runs of time buckets (`range`), and over all its buckets (`whole`:
 * the class's rows in the whole slice, what the walk inside it is weighed by), by key: one union
 * of index seeks, one statement (a class key and a run each; runs joined by `or` are a scan on
 * SQLite, see listPageQueries.ts bucketRunsSum).
 */
async function classCounts(db: Kysely<Database>, tenantId: string, slice: ListSlice, classes: readonly AmountClass[], segments: BucketSegment[]) {
  const keys = classes.map((c) => amountClassSortKey(c.key));
  // The kept counts and the changes not folded yet (changeTail.ts), per level and run.
  const seek = (level: number, inRange: boolean, from?: number, to?: number) => {
    const bounds = sql`${from === undefined ? sql`true` : sql`bucket >= ${from}`} and ${to === undefined ? sql`true` : sql`bucket <= ${to}`}`;
    return sql`select sort_key, ${sql.lit(inRange ? 1 : 0)} as in_range, n from ${liveBucketRows(dialectOf(db), tenantId, keys, level, slice, bounds)} as b`;
  };
  const runs = [...segments.map((s) => seek(s.level, true, s.from, s.to)), seek(0, false)];
  const { rows } = await sql<{ sort_key: string; in_range: number; n: number | string }>`select sort_key, in_range, sum(n) as n
    from (${sql.join(runs, sql` union all `)}) r group by sort_key, in_range`.execute(db);
  const range = new Map<string, number>();
  const whole = new Map<string, number>();
  for (const r of rows) (Number(r.in_range) === 1 ? range : whole).set(r.sort_key.slice(amountClassSortKey('').length), Number(r.n));
  return { range, whole };
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
): Promise<(PlacedClass & { sliceRows: number }) | undefined> {
  const deepest = coverage.finest ? 2 : 1;
  let classes: readonly AmountClass[] = COARSEST_CLASSES;
  let before = 0;
  for (let kind = 0; ; kind++) {
    const counts = await classCounts(db, tenantId, slice, classes, coverage.segments);
    const placed = classHolding(classes, (c) => (counts.range.get(c.key) ?? 0) + edgeRowsIn(edges, c), direction, at, before);
    // A class made of one finer class is that class (amounts below 10 have no two-digit classes).
    const children = placed && kind < deepest ? childClasses(kind, placed.cls) : [];
    if (!placed || children.length <= 1) return placed && { ...placed, sliceRows: counts.whole.get(placed.cls.key) ?? 0 };
    classes = children;
    before = placed.before;
  }
}

/** Where a class starts in list order (BucketStart): its least amount ascending, the amount past it descending; none for the open ends. */
function classStart(direction: 'asc' | 'desc', cls: AmountClass): BucketStart | undefined {
  if (direction === 'asc') return Number.isFinite(cls.first) ? { column: 'amount', op: '>=', value: cls.first } : undefined;
  return Number.isFinite(cls.end) ? { column: 'amount', op: '<', value: cls.end } : undefined;
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
 * The page `limit` rows after `skip` of a created_at range in amount order, in the caller's read transaction (the
 * counts, edge rows and rows are one reading): placed in its amount class, then skipped inside it on the amount
 * index (decision 0026). Undefined when walking costs less, the range covers no whole hour, or `placement` says
 * never: the caller then reads it row by row.
 */
export async function amountOrderPage(db: Kysely<Database>, dialect: Dialect, request: AmountOrderRequest, placement: ClassPlacement = 'cost') {
  const { table, scope, listQuery, query, ranged, skip, limit, total, rival } = request;
  if (placement === 'never') return undefined;
  const bounds = listQuery.conditions.flatMap((c) => (c.match === 'range' && c.column === 'created_at' ? [{ op: c.op, value: c.value }] : []));
  const coverage = classCoverage(bounds, ranged.slice.currency[0] !== '');
  if (!coverage) return undefined;
  const { tenantId } = scope;
  // The row-by-row ways walk the amount index from the list's start; the descent's reads cost about classReadsCost before any row.
  const walk = rival ?? walkedEntries(skip, limit, Number((await countedTotalSelect(db, tenantId, table, ranged.slice).executeTakeFirstOrThrow()).n), total);
  if (placement === 'cost' && walk <= classReadsCost(coverage)) return undefined;
  const edges = await edgeRows(db, table, scope, listQuery, coverage.covered);
  const placed = await placeInClasses(db, tenantId, ranged.slice, coverage, edges, query.sort[0].direction, skip);
  if (!placed) return undefined;
  const inner = skip - placed.before;
  if (placement === 'cost' && walkedEntries(inner, limit, placed.sliceRows, placed.rows) >= walk) return undefined;
  // Skipped along the amount index from the class's start (the page's first row found in the
  // index alone, `b`), the range tested on each entry, and the page read from that row on: one
  // statement, as a page bucket counts place (listPageQueries.ts pageFromRowSelect).
  const walked = withRangesWritten(query, dialect === 'sqlite' ? 'unindexed' : 'opaque');
  const { ctes, rows } = pageFromRowSelect(db, table, scope, walked, classStart(query.sort[0].direction, placed.cls), sql<number>`${inner}`, limit);
  const withCtes = ctes.reduce(
    (creator, cte) => creator.with(cte.name, () => cte.expression as Expression<Record<string, unknown>>) as unknown as QueryCreator<Database>,
    db as QueryCreator<Database>,
  );
  return (await rows(withCtes).execute()).map((r) => r.resource);
}
