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
 * PostgreSQL: a first page of a range off the sort with its total, as one named statement whose one generic plan
 * suits any value: the walk (range written `coalesce(amount, amount)`, which no index serves) and the range's
 * index (closed at its far end, read index-only and sorted, then the page's rows by id) are UNION ALL branches
 * under conditions on the counts (`c`, read once), a One-Time Filter that never starts the branch it fails
 * (decisions 0014, 0025). The total adds the edge rows as rangedTotalSelect does; the same rows either way.
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
