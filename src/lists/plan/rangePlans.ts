import type { ListQuery } from '../request/parseListQuery.ts';
import { skipFromNearerEnd } from './skipFromNearerEnd.ts';
import type { ListSlice, RangeCondition } from './listSlice.ts';

/**
 * How a page's statement is written when a range is on another column than the sort's first: walking the sort's
 * index suits a range keeping most rows, reading the range's index and sorting one keeping few; neither planner can
 * tell, so the counts choose (decision 0014; PostgreSQL's first pages: rangePlanStatement.ts). Only the SQL changes:
 * `literal` puts the value in the text (planned for it, unnamed); `unindexed` (`+column`, SQLite) and `opaque`
 * (`coalesce(column, column)`: PostgreSQL has no unary plus for a timestamp) keep every index off the column.
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
 * SQLite: a page placed by bucket counts starts at a row of the range and reads on by a row comparison on the
 * sort's index; the range's own bound on that side holds for every such row, yet left indexable SQLite bounds the
 * index by it rather than by the row, reading every entry from the range's start (decision 0012). Written
 * unindexed, it is still tested, row by row.
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
 * PostgreSQL: `query` with its range on `column` closed below by the type's far end when it has no lower bound
 * (`amount <= 100` and `amount >= -9223372036854775808`), which every row satisfies: with no lower bound a generic
 * plan priced a ranged total's edge count (rangedTotal.ts) as a third of the rows and started parallel workers to
 * count it (decision 0025).
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
 * SQLite: whether a page placed by amount classes and slivers costs less than a walk to it from the nearer end:
 * the slivers' rows are read in the amount index, SLIVER_ROW_COST walked entries each; the walk reads about
 * (skip + per_page) × slice ÷ range entries. The page's own walk inside its day (a day's rows at most) is left
 * out: only the placed page pays it (decision 0024).
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
 * SQLite: what reading and sorting one entry of the range's index costs, in entries walked along the sort's index,
 * when the sort keeps `rows` rows (skip + per_page). Both indexes carry the other column, so neither plan reads a
 * table row. A whole sort kept for a deep OFFSET costs far more per entry than a first page's top-N; the deep
 * weight is the dearer end's, so the range's index is taken only where far cheaper (decision 0025).
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
