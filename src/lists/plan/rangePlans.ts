import type { ListQuery } from '../request/parseListQuery.ts';
import { skipFromNearerEnd } from './skipFromNearerEnd.ts';
import type { ListSlice, RangeCondition } from './listSlice.ts';

/**
 * How a page's statement is steered when a range is on another column than the sort's first
 * (`filter[amount][gte]=1000` sorted by `created_at`). Two plans are right there, depending on
 * how much of the list the range keeps: walk the sort's index and drop the rows out of range
 * (cheap when most rows are in range: page 1 reads about per_page rows), or read the range from
 * its column's index and sort what it finds (cheap when few are). Neither planner can tell on its
 * own: SQLite keeps no statistics and took the range's index whenever it had one (~260 ms for
 * page 1 at 100k payments, 70 % of them in range), and since the sort's indexes carry the amount
 * (migration 0019) takes them whatever the range (20 ms for page 1 of `amount ≤ 100`, 0.05 % of
 * 10M payments, where the range's index reads 5k entries); PostgreSQL's generic plan of a named
 * statement (plan_cache_mode = force_generic_plan) prices a range on two ends as very selective
 * and takes `payments_tenant_currency_amount` and sorts (40–70 ms against 0.8 ms for the plan the
 * values call for). Where both plans serve the list (a bucketed slice whose index gives the
 * sort's order), counts choose: SQLite reads two count rows first (walkIsCheaper); PostgreSQL's
 * first pages hold both plans in one named statement that chooses by the same counts as it runs
 * (rangePlanStatement.ts). Nothing here changes which rows match, only how the SQL is written:
 * - `literal`: the range's value in the SQL text rather than a parameter, so PostgreSQL's plan
 *   of the statement is made for that value with its statistics (the statement is then sent
 *   unnamed, planned on every call: a few hundred µs against tens of ms of a wrong plan): its
 *   deep pages, and lists whose plan no counts choose;
 * - `unindexed`: the column written `+column` (SQLite), which no index serves, so the planner
 *   walks the slice's index in the sort's order and tests each row's range; where the counts
 *   choose the range's index instead, the sort's first column is written so (withSortUnindexed);
 * - `opaque`: the same for PostgreSQL, `coalesce(column, column)` (it has no unary plus for a
 *   timestamp, and does not fold the coalesce of a column): the walk branch of its statement.
 */
export type RangeWriting = 'literal' | 'unindexed' | 'opaque';

/** Whether a range condition of `query` is on another column than its sort's first. */
export function hasRangeOffTheSort(query: ListQuery): boolean {
  const first = query.sort[0]?.column;
  return query.conditions.some((c) => c.match === 'range' && c.column !== first);
}

/**
 * `query` with its ranges on other columns than the sort's first written `writing`. A literal
 * is only ever a safe integer or a normalised time text (parseListQuery.ts); any other value
 * stays a parameter.
 */
export function withRangesWritten(query: ListQuery, writing: RangeWriting): ListQuery {
  const first = query.sort[0]?.column;
  return written(query, writing, (c) => c.column !== first);
}

/**
 * SQLite: a page placed by bucket counts (findInBuckets.ts) starts at a row of the range and
 * reads on from it by a row comparison on the sort's index, `(amount, id) >= (…)`; the range's
 * own bound on that side (`amount >= 1000` ascending) holds for every such row, and left
 * indexable SQLite bounds the index by it rather than by the row, reading every entry from the
 * range's start to the page (measured: 18–46 ms for the page at 90 % of `amount ≥ 1000` sorted
 * by amount at 100k, against ~2 ms). Written unindexed, it is still tested, row by row.
 */
export function withStartSideUnindexed(query: ListQuery, direction: 'asc' | 'desc'): ListQuery {
  const first = query.sort[0]?.column;
  const side = direction === 'asc' ? ['gte', 'gt'] : ['lte', 'lt'];
  return written(query, 'unindexed', (c) => c.column === first && side.includes(c.op));
}

function written(query: ListQuery, writing: RangeWriting, pick: (c: RangeCondition) => boolean): ListQuery {
  const literalSafe = (value: string | number) => typeof value === 'string' || Number.isSafeInteger(value);
  return {
    ...query,
    conditions: query.conditions.map((c) =>
      c.match === 'range' && pick(c) && (writing !== 'literal' || literalSafe(c.value)) ? { ...c, written: writing } : c,
    ),
  };
}

/** The far ends of a bucketed column's type: every value it can hold lies between them. */
const FAR_ENDS: Record<string, { low: string; high: string }> = {
  amount: { low: '-9223372036854775808', high: '9223372036854775807' },
  created_at: { low: '-infinity', high: 'infinity' },
};

/**
 * PostgreSQL: `query` with a range open at one end on another column than the sort's first closed
 * there by its type's far end (`amount >= $1` and `amount <= 9223372036854775807`), which every
 * row satisfies. A generic plan prices a range on one end of a parameter as a third of the rows
 * and one on both ends as very few: closed, the plan of the branch that reads the range's index
 * (rangePlanStatement.ts) is made for the few rows it runs for.
 */
export function withRangesClosed(query: ListQuery): ListQuery {
  const first = query.sort[0]?.column;
  const added: ListQuery['conditions'] = [];
  for (const column of new Set(query.conditions.flatMap((c) => (c.match === 'range' && c.column !== first ? [c.column] : [])))) {
    const far = FAR_ENDS[column];
    if (!far) continue;
    const ops = query.conditions.flatMap((c) => (c.match === 'range' && c.column === column ? [c.op] : []));
    if (!ops.some((op) => op === 'lt' || op === 'lte')) added.push({ column, match: 'range', op: 'lte', value: far.high });
    if (!ops.some((op) => op === 'gt' || op === 'gte')) added.push({ column, match: 'range', op: 'gte', value: far.low });
  }
  return { ...query, conditions: [...query.conditions, ...added] };
}

/**
 * PostgreSQL: `query` with its range on `column` closed below by the type's far end when it has no
 * lower bound (`amount <= 100` and `amount >= -9223372036854775808`), which every row satisfies.
 * A ranged total counts the rows below its covered buckets (rangedTotal.ts) by the range's
 * conditions bar its upper bounds; with no lower bound left, a generic plan prices `amount < $1`
 * as a third of the rows and gathers the count from parallel workers, whose start took 10–20 ms of
 * a 1M first page of `amount ≤ 100` that counted no row.
 */
export function withLowEndClosed(query: ListQuery, column: string): ListQuery {
  const far = FAR_ENDS[column];
  const ops = query.conditions.flatMap((c) => (c.match === 'range' && c.column === column ? [c.op] : []));
  if (!far || ops.length === 0 || ops.some((op) => op === 'gt' || op === 'gte')) return query;
  return { ...query, conditions: [...query.conditions, { column, match: 'range', op: 'gte', value: far.low }] };
}

/**
 * Whether a walk along the sort's index is the cheaper way to a page (SQLite), from the slice's
 * count and the range's count in buckets wholly inside it (a lower bound of the range's rows).
 * A walk reads about (skip + per_page) × slice ÷ range rows; the range's index reads every row
 * in range and sorts them (on every skip hop of a deep page too), each entry `sortCost` walked
 * ones (SQLite: sqliteSortCost). The skip is counted from the nearer end, as the page will be.
 */
export function walkIsCheaper(counts: { slice: number; covered: number }, offset: number, perPage: number, sortCost = 1): boolean {
  const { slice, covered } = counts;
  if (covered <= 0) return false;
  return (skipFromNearerEnd(covered, offset, perPage) + perPage) * slice <= sortCost * covered * covered;
}

/**
 * SQLite: whether a page placed by amount classes and slivers (amountClassRanges.ts) costs less
 * than a walk to it from the nearer end, the range tested row by row: the slivers' `sliver` rows
 * are read in the amount index and grouped by day, SLIVER_ROW_COST walked entries each; the walk
 * reads about (skip + per_page) × slice ÷ range entries. (The page's own walk inside its day is
 * left out: the slivers' placed page pays it, the walk's page does not, and it is a day's rows at
 * most.)
 */
export function sliversAreCheaper(counts: { slice: number; covered: number; sliver: number }, offset: number, perPage: number): boolean {
  const { slice, covered, sliver } = counts;
  if (covered <= 0) return true;
  return sliver * SLIVER_ROW_COST <= ((skipFromNearerEnd(covered, offset, perPage) + perPage) * slice) / covered;
}

/**
 * A sliver's row, read in the amount index and grouped by its day's text, in entries walked along
 * the sort's index (measured at 1M: 2,204 rows of `amount` 121–124 grouped by day 0.7 ms, 0.32 µs
 * a row, against 0.08 µs a walked entry).
 */
const SLIVER_ROW_COST = 4;

/**
 * SQLite: what reading one entry of the range's index and sorting it costs, in entries walked
 * along the sort's index, when the sort keeps `rows` rows (skip + per_page). Both indexes carry
 * the other column (migrations 0019, 0026), so neither plan reads a table row for the test or the
 * sort. Measured at 1M payments (a walk: 0.08 µs an entry): a top-`rows` sort of a range's
 * entries, 0.11 µs an entry (a first page); a sort kept whole for a deep OFFSET, 0.68 µs an entry
 * at 27k entries, 2.8 µs at 300k. The deep weight is the dearer end's: the range's index is then
 * taken only where it is far cheaper, never where a walk measured cheaper.
 */
export function sqliteSortCost(rows: number): number {
  return rows <= SQLITE_SMALL_SORT ? 1.5 : 35;
}

/** Up to this many rows kept, SQLite's sorter holds the page's rows alone (its LIMIT optimisation). */
const SQLITE_SMALL_SORT = 1000;

/** `query` with its sort's first column written unindexed (SQLite: `+created_at`): no index gives the order, so the planner reads the range's. */
export function withSortUnindexed(query: ListQuery): ListQuery {
  const [first, ...rest] = query.sort;
  return first ? { ...query, sort: [{ ...first, written: 'unindexed' }, ...rest] } : query;
}

/**
 * Whether walking the sort's index yields the list's rows in its order: one value in each
 * narrowed dimension (one index: the slice's, by the sort's column) and a single sort key.
 */
export function walkServesOrder(slice: ListSlice, query: ListQuery): boolean {
  return query.sort.length === 1 && Object.values(slice).every((values) => values.length === 1);
}

/** A ranged list's query without its range: the slice, whose rows a deep page skips from a bucket's start. */
export function withoutRanges(query: ListQuery): ListQuery {
  return { ...query, conditions: query.conditions.filter((c) => c.match !== 'range') };
}
