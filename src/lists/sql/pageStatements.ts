import { sql, type Compilable, type Kysely } from 'kysely';
import type { Database, Dialect } from '../../db/schema.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import type { AmountSliver } from '../plan/amountClassRanges.ts';
import { inSliver, type BucketSearch } from '../plan/bucketSearch.ts';
import { SKIP_HOP } from '../plan/listTuning.ts';
import type { ListShape, OneStatementPlan, TotalWay } from '../plan/pagePlan.ts';
import { rowsQueryOf } from '../plan/planPage.ts';
import { withLowEndClosed, withRangesWritten, withStartSideUnindexed, withoutRanges } from '../plan/rangePlans.ts';
import { hasLiteral } from '../plan/valuePlans.ts';
import { bucketDescent, type SliverRows } from './findInBuckets.ts';
import { compilable, FORMS } from './statementForms.ts';
import { boundaryOf, type Boundary } from './keyset.ts';
import {
  countedTotalSelect,
  countSelect,
  hopSelect,
  offsetPageSelect,
  pageFromRowSelect,
  rangedTotalSelect,
  rowsBeforeRangeSelect,
  signedRowsPerBucketSelect,
  sortedIdsPageSelect,
} from './listPageQueries.ts';
import { metadataPlanPageStatement, metadataTotalSelect } from './metadataPlanStatement.ts';
import { entryOrderPageStatement } from './entryOrderPage.ts';
import { rangePlanPageStatement } from './rangePlanStatement.ts';
import { withKeyedWriting } from '../plan/keyedPlans.ts';

/**
 * The statements of a plan (plan/pagePlan.ts): a list's total, and the one statement that reads a
 * page with its total. They build SQL; running it is the runner's (runListPage.ts).
 */

/** The select of a list's total (`n`), from where the plan says (TotalWay). */
export function totalSelect(db: Kysely<Database>, dialect: Dialect, list: ListShape, total: TotalWay) {
  switch (total.from) {
    case 'list_counts':
      return countedTotalSelect(db, list.scope.tenantId, list.table, list.slice!);
    case 'list_buckets': {
      const ranged = list.ranged!;
      const query = FORMS[dialect].closesLowEnd ? withLowEndClosed(list.query, ranged.column) : list.query;
      return rangedTotalSelect(db, list.table, list.scope, query, ranged);
    }
    case 'metadata':
      return metadataTotalSelect(db, dialect, list.table, list.scope, list.query, total.count);
    // SQLite, a keyed filter holding few rows (keyedPlans.ts): counted in its own index, the other filters tested row by row.
    case 'keyed-index':
      return countSelect(db, list.table, list.scope, withKeyedWriting(list.query, total.column, false));
    case 'rows':
      return countSelect(db, list.table, list.scope, list.query);
  }
}

/**
 * The boundary (sort keys + id) of the row at position `offset` (1-based), reached in hops of at
 * most `hop` rows; null when the list is shorter, undefined for offset 0 (nothing to skip past).
 * Run it in a transaction for an exact answer.
 */
export async function skipInHops(
  db: Kysely<Database>,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  offset: number,
  hop = SKIP_HOP,
): Promise<Boundary | null | undefined> {
  let boundary: Boundary | undefined;
  for (let skipped = 0; skipped < offset; ) {
    const step = Math.min(hop, offset - skipped);
    const row = await hopSelect(db, table, scope, query, boundary, step).executeTakeFirst();
    if (!row) return null;
    boundary = boundaryOf(row as Record<string, unknown>, query.sort);
    skipped += step;
  }
  return boundary;
}

/** The signed rows of a search's slivers per bucket of the descent's finest level (findInBuckets.ts), one grouped read of each sliver. */
function sliverRowsOf(db: Kysely<Database>, dialect: Dialect, list: ListShape, slivers: AmountSliver[]): SliverRows {
  return (finest) =>
    slivers
      .map((s) => signedRowsPerBucketSelect(db, list.table, list.scope, inSliver(list.query, s), FORMS[dialect].grouping(finest), s.sign))
      .reduce((all, one) => all.unionAll(one));
}

/**
 * The descent and the page it places. A ranged list's descent looks for row (rows of the slice
 * before the range) + offset of its slice, and skips the slice's rows from that bucket's start;
 * the page is then read with the range's conditions too (rows past the range are not the list's).
 */
function placedPage(db: Kysely<Database>, dialect: Dialect, list: ListShape, total: TotalWay, search: BucketSearch, paging: PageParams) {
  const { table, scope, query, ranged } = list;
  const totalSql = totalSelect(db, dialect, list, total);
  if (search.sortKeys) {
    // The descent counted the range's own rows; the skip and the page walk the sort's index and test the range on each row.
    const walked = withRangesWritten(query, FORMS[dialect].walkedRange);
    const slivers = search.slivers && sliverRowsOf(db, dialect, list, search.slivers);
    const descent = bucketDescent(search, totalSql, paging.offset, dialect, undefined, slivers);
    return { descent, page: pageFromRowSelect(db, table, scope, walked, descent.start, descent.skip, paging.perPage, walked) };
  }
  const before = ranged && rowsBeforeRangeSelect(db, table, scope, query, ranged, search.direction);
  const descent = bucketDescent(search, totalSql, paging.offset, dialect, before);
  const skipQuery = ranged ? withoutRanges(query) : query;
  // SQLite: the range's bound on the page's starting side steers no index (rangePlans.ts).
  const rowsQuery = ranged && FORMS[dialect].startSideUnindexed ? withStartSideUnindexed(query, search.direction) : query;
  return { descent, page: pageFromRowSelect(db, table, scope, rowsQuery, descent.start, descent.skip, paging.perPage, skipQuery) };
}

/**
 * The one statement of a one-statement plan: the page's rows with the total. PostgreSQL
 * `select t.n as total, p.resource from t left join lateral (page) p on true` (one row with a null
 * resource when the page is empty); SQLite the page's own select with the total a column of each row.
 */
export function pageStatement(db: Kysely<Database>, dialect: Dialect, plan: OneStatementPlan, paging: PageParams): Compilable {
  const { list } = plan;
  switch (plan.way) {
    case 'entries': {
      const statement = entryOrderPageStatement(dialect, list.table, list.scope, list.query, paging, FORMS[dialect].prepares, plan.lead);
      return FORMS[dialect].asRead(list, compilable(statement, db));
    }
    case 'range-choice':
      return compilable(rangePlanPageStatement(db, list.table, list.scope, list.query, plan.list.ranged, paging), db);
    case 'metadata-choice':
      return compilable(metadataPlanPageStatement(db, list.table, list.scope, list.query, paging, plan.choose, !hasLiteral(list.query)), db);
    case 'buckets': {
      const { descent, page } = placedPage(db, dialect, list, plan.total, plan.search, paging);
      return FORMS[dialect].placedWithTotal(db, list, [...descent.ctes, ...page.ctes], page.rows);
    }
    case 'offset': {
      const rowsQuery = rowsQueryOf(dialect, list, plan.rows);
      const total = totalSelect(db, dialect, list, plan.total);
      if (plan.skipInIndex) {
        const { ctes, rows } = pageFromRowSelect(db, list.table, list.scope, list.query, undefined, sql<number>`${paging.offset}`, paging.perPage);
        return FORMS[dialect].pageWithTotal(db, list, rows, total, ctes);
      }
      const page = (plan.rows.walk === false ? sortedIdsPageSelect : offsetPageSelect)(db, list.table, list.scope, rowsQuery, paging.offset, paging.perPage);
      return FORMS[dialect].pageWithTotal(db, list, () => page, total);
    }
  }
}
