import type { Condition, ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import { skipFromNearerEnd } from './skipFromNearerEnd.ts';
import { rangedTotalOf } from './rangedTotal.ts';
import { countedSlice } from './listSlice.ts';
import { sqliteSortCost } from './rangePlans.ts';

/**
 * SQLite: filters on a column of many values with an index of its own (a card's last four, a reference, an email).
 * Without statistics SQLite read such a list along another index, each row read to test the filter; PostgreSQL
 * chooses well alone. So the counts choose: the filter's rows counted in its index up to the list's size without
 * it; when fewer, its index drives the total and the page sorts its ids or walks the sort's index, whichever reads
 * fewer rows. The same rows come either way (decision 0028).
 */
const KEYED_COLUMNS: Partial<Record<ListTable, readonly string[]>> = {
  payments: ['card_last4', 'reference'],
  accounts: ['email_folded'],
};

export type KeyedCondition = Extract<Condition, { match: 'in' | 'equals' }>;

/**
 * The list's first keyed filter, when the list is the tenant's whole list narrowed by it, counted
 * dimensions and at most a range of a bucketed column: what the list holds without the keyed filter
 * is then known from maintained counts (keyedCounts).
 */
export function keyedConditionOf(table: ListTable, scope: ListScope, query: ListQuery): KeyedCondition | undefined {
  if (scope.accountId !== undefined || scope.endpointId !== undefined) return undefined;
  const keyed = query.conditions.find(
    (c): c is KeyedCondition => (c.match === 'in' || c.match === 'equals') && (KEYED_COLUMNS[table] ?? []).includes(c.column),
  );
  if (!keyed) return undefined;
  const others = withoutCondition(query, keyed);
  return countedSlice(table, scope, others) || rangedTotalOf(table, scope, others) ? keyed : undefined;
}

export const withoutCondition = (query: ListQuery, dropped: Condition): ListQuery => ({ ...query, conditions: query.conditions.filter((c) => c !== dropped) });

/**
 * What the choice goes by: the keyed filter's rows, counted no further than KEYED_COUNT_CAP + 1;
 * the list's size without it (its counted slice, or under a range the slice's rows in the buckets
 * wholly inside the range, a lower bound); the tenant's whole list.
 */
export interface KeyedCounts {
  keyed: number;
  size: number;
  whole: number;
}

/**
 * How far the keyed filter's rows are counted for the choice: entries of its index alone (0.1 µs
 * each), so the counts are read inline, as bounded as a counted slice's. A filter holding more is
 * taken to hold this many: its sorted rows then seem cheaper than they are, which only matters
 * where a walk to the page reads more than this many rows anyway.
 */
export const KEYED_COUNT_CAP = 20_000;

/**
 * What a walked row costs against an entry of the keyed filter's index read and sorted: the sort's
 * index lacks the keyed column, so the walk reads each row's record to test it, while the keyed
 * index carries what the other filters and the sort need (migration 0027). Measured at 1M payments:
 * a record read by rowid ~1–2 µs against ~0.1 µs an index entry.
 */
const WALKED_ROW_IN_ENTRIES = 10;

/**
 * How a keyed list's page is read, from its counts; undefined when the other filters' index reads fewer rows.
 * `walk` (as RowsWriting's, pagePlan.ts): true, the sort's index walked; false, the keyed rows' ids sorted;
 * undefined, the keyed index gives the list's order itself. Matches under other filters are estimated as if
 * independent. `fromNearerEnd`: the skip counted from the nearer end (a deep page), else from the start.
 */
export function keyedPlanOf(
  counts: KeyedCounts,
  query: ListQuery,
  keyed: KeyedCondition,
  offset: number,
  perPage: number,
  fromNearerEnd = true,
): { walk: boolean | undefined } | undefined {
  const { size, whole } = counts;
  if (counts.keyed > size || counts.keyed === 0) return counts.keyed === 0 ? { walk: false } : undefined;
  const single = keyed.match === 'equals' || keyed.values.length === 1;
  if (single && query.sort.length === 1 && query.sort[0].column === 'created_at') return { walk: undefined };
  const others = query.conditions.length > 1;
  const matches = others && whole > 0 ? Math.max(1, (counts.keyed * size) / whole) : counts.keyed;
  // A first page's OFFSET is skipped from the start (one statement); a deeper page's from the nearer end.
  const skip = fromNearerEnd ? skipFromNearerEnd(matches, offset, perPage) : offset;
  return { walk: (((skip + perPage) * size) / matches) * WALKED_ROW_IN_ENTRIES <= sqliteSortCost(skip + perPage) * counts.keyed };
}

/**
 * `query` written for its keyed plan (writing only: the same rows): the walk tests the keyed filter
 * row by row (`+card_last4`), so the sort's index is the one walked; otherwise the other filters are
 * tested row by row, so the keyed filter's index is the one read, a created_at range bounding it
 * (the index's next column).
 */
export function withKeyedWriting(query: ListQuery, keyedColumn: string, walk: boolean | undefined): ListQuery {
  const unindexed = (c: Condition) =>
    walk === true ? c.column === keyedColumn : c.column !== keyedColumn && !(c.match === 'range' && c.column === 'created_at');
  return {
    ...query,
    conditions: query.conditions.map((c) =>
      (c.match === 'in' || c.match === 'equals' || (c.match === 'range' && c.written === undefined)) && unindexed(c)
        ? { ...c, written: 'unindexed' as const }
        : c,
    ),
  };
}
