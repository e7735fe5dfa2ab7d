import { sql, type Expression, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { flagged } from '../../db/driverFlags.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import { offsetKeysSelect, offsetPageSelect, rangedTotalOver, rangeShareSelect, rowByIdSelect, type ListScope, type ListTable } from './listPageQueries.ts';
import type { RangedTotal } from '../plan/rangedTotal.ts';
import { withLowEndClosed, withRangesClosed, withRangesWritten } from '../plan/rangePlans.ts';
import { totalOrder } from '../plan/totalOrder.ts';

/**
 * rangePlans.ts' walkIsCheaper in SQL, over the counts `slice` and `covered` (numbers of the
 * statement's own row): the same test, the skip counted from the nearer end.
 */
export function walkIsCheaperSql(slice: Expression<number>, covered: Expression<number>, offset: number, perPage: number) {
  const skip = sql`least(cast(${offset} as bigint), greatest(0, ${covered} - cast(${offset} as bigint) - cast(${perPage} as bigint)))`;
  return sql<boolean>`(${covered} > 0 and (${skip} + cast(${perPage} as bigint)) * ${slice} <= ${covered} * ${covered})`;
}

/**
 * PostgreSQL: one of the first pages of a range on another column than the sort's first, with
 * its total, as one named statement whose one generic plan is right for any value of the range
 * (rangePlans.ts, docs/query-plans.md). Both plans are in it, as the two branches of a
 * UNION ALL, and the counts it reads for the total choose which one runs:
 *
 * - the walk: the range written `coalesce(amount, amount)`, which no index serves, so the only
 *   way to the rows in order is the slice's index in the sort's order, each row's range tested;
 * - the range's index: the range closed at its open end by its type's far end (withRangesClosed),
 *   which a generic plan prices as few rows: it reads them from the range's index and sorts them,
 *   each as its sort keys and id alone, which that index carries (migrations 0019, 0026: an Index
 *   Only Scan), then reads the page's rows by id (a deferred join, one primary-key lookup a row).
 *   Read whole, every row in range was fetched from the table at random to sort it and keep
 *   per_page of them (page 1 of `amount ≤ 100`, 5,392 of 10M payments: ~160 ms, against ~4 ms
 *   for the list unfiltered).
 *
 * Each branch is under a condition on the statement's counts alone (walkIsCheaper's, and its
 * negation), with no column of the branch's rows: PostgreSQL puts such a condition in a Result
 * node above the branch ("One-Time Filter") and never starts the branch it fails. The slice's
 * count and the covered buckets' sum are read once (`c`, materialized), the total adds the
 * range's edge rows to the latter as rangedTotalSelect does. Which rows come, and in which order,
 * is the same either way: only how they are found differs.
 */
export function rangePlanPageStatement(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery, ranged: RangedTotal, paging: PageParams) {
  const total = rangedTotalOver(db, table, scope, withLowEndClosed(query, ranged.column), ranged, sql.ref('c.covered'));
  const walks = walkIsCheaperSql(sql.ref('t.slice'), sql.ref('t.covered'), paging.offset, paging.perPage);
  const order = totalOrder(query.sort);
  const columns = [...new Set(order.map((k) => k.column))] as Array<'id'>;
  const walk = offsetPageSelect(db, table, scope, withRangesWritten(query, 'opaque'), paging.offset, paging.perPage).select(columns).where(walks);
  const keys = offsetKeysSelect(db, table, scope, withRangesClosed(query), paging.offset, paging.perPage).where(sql<boolean>`not ${walks}`);
  const keyColumns = sql.join(columns.map((c) => sql.ref(`k.${c}`)));
  const read = sql`select r.resource, ${keyColumns} from (${keys}) as k cross join lateral (${rowByIdSelect(db, table, scope, sql.ref('k.id'))}) as r`;
  const inOrder = sql.join(order.map((k) => sql`${sql.ref(`u.${k.column}`)} ${sql.raw(k.direction)}`));
  const statement = sql`with c as materialized (${rangeShareSelect(db, table, scope, ranged)})
    select t.n as total, p.resource from (select c.slice, c.covered, ${total} as n from c) as t
    left join lateral (select u.resource from ((${walk}) union all (${read})) as u order by ${inOrder}) as p on true`;
  return flagged(statement, { prepared: true });
}
