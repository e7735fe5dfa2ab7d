import { sql, type RawBuilder } from 'kysely';
import type { SliceKind } from '../counters/sortBuckets.ts';
import { bucketKindOf, DIMENSION_COLUMN, DIMENSIONS, dimensionsOf, isCountedList, type Dimension } from '../counters/countedSlices.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import type { Condition, ListQuery } from '../request/parseListQuery.ts';

/**
 * A list that maintained counts cover: per counted dimension, any of these values ([''] = all).
 * Disjoint slices add up: its total is the sum of the list_counts rows with `dim in (values)`
 * in every dimension.
 */
export type ListSlice = Record<Dimension, string[]>;

/** A range condition (gte/gt/lte/lt) on a column. */
export type RangeCondition = Extract<Condition, { match: 'range' }>;

/** The dimensions a slice is narrowed by. */
export function narrowedDimensions(slice: ListSlice): Dimension[] {
  return DIMENSIONS.filter((d) => slice[d][0] !== '');
}

function dimensionOfColumn(table: ListTable, column: string): Dimension | undefined {
  if (!isCountedList(table)) return undefined;
  return dimensionsOf(table).find((d) => DIMENSION_COLUMN[table][d] === column);
}

/**
 * The counted slice a list query's equality filters name, and its remaining range conditions:
 * every condition an any-of filter on a counted dimension (list_counts holds every combination
 * of them, countedSlices.ts) or a range. Undefined for any other filter: such lists are counted
 * row by row.
 */
export function slicedList(table: ListTable, scope: ListScope, query: ListQuery): { slice: ListSlice; ranges: RangeCondition[] } | undefined {
  if (!isCountedList(table)) return undefined;
  const slice: ListSlice = { account_id: [''], status: [''], currency: [''], card_brand: [''] };
  if (scope.accountId !== undefined) slice.account_id = [scope.accountId];
  if (scope.endpointId !== undefined) return undefined;
  const ranges: RangeCondition[] = [];
  for (const c of query.conditions) {
    if (c.match === 'range') {
      ranges.push(c);
      continue;
    }
    const dim = c.match === 'in' ? dimensionOfColumn(table, c.column) : undefined;
    if (!dim || c.match !== 'in' || slice[dim][0] !== '') return undefined;
    slice[dim] = c.values;
  }
  return { slice, ranges };
}

/** The counted slice a list query asks for when its only conditions are any-of filters on counted dimensions; its total is read from list_counts. */
export function countedSlice(table: ListTable, scope: ListScope, query: ListQuery): ListSlice | undefined {
  const sliced = slicedList(table, scope, query);
  return sliced && sliced.ranges.length === 0 ? sliced.slice : undefined;
}

/** Which bucket counts cover a slice (countedSlices.ts: the whole list, each single dimension, and the pairs of status, currency and card brand). */
export function bucketSliceKind(table: ListTable, slice: ListSlice): SliceKind | undefined {
  if (!isCountedList(table)) return undefined;
  return bucketKindOf(table, narrowedDimensions(slice));
}

/** The list_buckets (or list_counts) rows of a slice: `dim in (values)` for every dimension. */
export function sliceSql(slice: ListSlice): RawBuilder<unknown> {
  return sql.join(
    DIMENSIONS.map((d) => sql`${sql.ref(d)} in (${sql.join(slice[d])})`),
    sql` and `,
  );
}
