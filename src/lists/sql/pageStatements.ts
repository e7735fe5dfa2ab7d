import { sql, type Compilable, type Expression, type Kysely, type QueryCreator } from 'kysely';
import type { Database, Dialect } from '../../db/schema.ts';
import { flagged } from '../../db/driverFlags.ts';
import type { BucketLevel } from '../counters/sortBuckets.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import type { AmountSliver } from '../plan/amountClassRanges.ts';
import { inSliver, type BucketSearch } from '../plan/bucketSearch.ts';
import { SKIP_HOP } from '../plan/listTuning.ts';
import type { ListShape, OneStatementPlan, TotalWay } from '../plan/pagePlan.ts';
import { boundedPage, rowsQueryOf } from '../plan/planPage.ts';
import { withLowEndClosed, withRangesWritten, withStartSideUnindexed, withoutRanges } from '../plan/rangePlans.ts';
import { hasLiteral } from '../plan/valuePlans.ts';
import { bucketDescent, withClause, type SliverRows } from './findInBuckets.ts';
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
      const query = dialect === 'postgres' ? withLowEndClosed(list.query, ranged.column) : list.query;
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
      .map((s) => signedRowsPerBucketSelect(db, list.table, list.scope, inSliver(list.query, s), groupingOf(finest, dialect), s.sign))
      .reduce((all, one) => all.unionAll(one));
}

/** How many leading characters of SQLite's stored time (`2026-08-01T13:…Z`, UTC) name its day or its hour. */
const TIME_TEXT_PREFIX: Record<number, number> = { 86400000: 10, 3600000: 13 };

/**
 * What a sliver's rows are grouped by: its finest bucket. SQLite groups by the stored text's day or
 * hour (`substr`), a group then being one bucket: three times cheaper than each row's bucket number.
 */
function groupingOf(finest: BucketLevel, dialect: Dialect): string {
  const prefix = TIME_TEXT_PREFIX[finest.high(0) - finest.low(0)];
  return dialect === 'sqlite' && prefix ? `substr(created_at, 1, ${prefix})` : finest.sql(dialect);
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
    const walked = withRangesWritten(query, dialect === 'sqlite' ? 'unindexed' : 'opaque');
    const slivers = search.slivers && sliverRowsOf(db, dialect, list, search.slivers);
    const descent = bucketDescent(search, totalSql, paging.offset, dialect, undefined, slivers);
    return { descent, page: pageFromRowSelect(db, table, scope, walked, descent.start, descent.skip, paging.perPage, walked) };
  }
  const before = ranged && rowsBeforeRangeSelect(db, table, scope, query, ranged, search.direction);
  const descent = bucketDescent(search, totalSql, paging.offset, dialect, before);
  const skipQuery = ranged ? withoutRanges(query) : query;
  // SQLite: the range's bound on the page's starting side steers no index (rangePlans.ts).
  const rowsQuery = ranged && dialect === 'sqlite' ? withStartSideUnindexed(query, search.direction) : query;
  return { descent, page: pageFromRowSelect(db, table, scope, rowsQuery, descent.start, descent.skip, paging.perPage, skipQuery) };
}

/** SQLite: a page is at most per_page rows, read in one call (`readAtOnce`), and `bounded` when boundedPage says so. */
const sqlitePage = (list: ListShape, statement: Compilable) =>
  flagged(statement, boundedPage(list) ? { readAtOnce: true, bounded: true } : { readAtOnce: true });

const compilable = (statement: { compile(db: Kysely<Database>): ReturnType<Compilable['compile']> }, db: Kysely<Database>): Compilable => ({
  compile: () => statement.compile(db),
});

/**
 * The one statement of a one-statement plan: the page's rows with the total. PostgreSQL
 * `select t.n as total, p.resource from t left join lateral (page) p on true` (one row with a null
 * resource when the page is empty); SQLite the page's own select with the total a column of each row.
 */
export function pageStatement(db: Kysely<Database>, dialect: Dialect, plan: OneStatementPlan, paging: PageParams): Compilable {
  const { list } = plan;
  switch (plan.way) {
    case 'entries': {
      const statement = entryOrderPageStatement(dialect, list.table, list.scope, list.query, paging, dialect === 'postgres', plan.lead);
      return dialect === 'sqlite' ? sqlitePage(list, compilable(statement, db)) : compilable(statement, db);
    }
    case 'range-choice':
      return compilable(rangePlanPageStatement(db, list.table, list.scope, list.query, plan.list.ranged, paging), db);
    case 'metadata-choice':
      return compilable(metadataPlanPageStatement(db, list.table, list.scope, list.query, paging, plan.choose, !hasLiteral(list.query)), db);
    case 'buckets': {
      const { descent, page } = placedPage(db, dialect, list, plan.total, plan.search, paging);
      if (dialect === 'sqlite') {
        const withCtes = [...descent.ctes, ...page.ctes].reduce(
          (creator, cte) => creator.with(cte.name, () => cte.expression as Expression<Record<string, unknown>>) as unknown as QueryCreator<Database>,
          db as QueryCreator<Database>,
        );
        return sqlitePage(list, page.rows(withCtes).select(sql<number>`(select n from t)`.as('total')));
      }
      const statement = sql`with ${withClause([...descent.ctes, ...page.ctes])}
    select t.n as total, p.resource from t left join lateral (${page.rows()}) as p on true`;
      return flagged(compilable(statement, db), { prepared: true });
    }
    case 'offset': {
      const rowsQuery = rowsQueryOf(dialect, list, plan.rows);
      const page = (plan.rows.walk === false ? sortedIdsPageSelect : offsetPageSelect)(db, list.table, list.scope, rowsQuery, paging.offset, paging.perPage);
      const total = totalSelect(db, dialect, list, plan.total);
      if (dialect === 'sqlite') return sqlitePage(list, page.select(total.as('total')));
      // A range or values written as literals make the text differ per value: sent unnamed, planned per call.
      const flags = hasLiteral(list.query) ? {} : { prepared: true as const };
      if (plan.skipInIndex) {
        const { ctes, rows } = pageFromRowSelect(db, list.table, list.scope, list.query, undefined, sql<number>`${paging.offset}`, paging.perPage);
        const statement = sql`with ${withClause(ctes)}
    select t.n as total, p.resource from (${total}) as t left join lateral (${rows()}) as p on true`;
        return flagged(compilable(statement, db), flags);
      }
      return flagged(compilable(sql`select t.n as total, p.resource from (${total}) as t left join lateral (${page}) as p on true`, db), flags);
    }
  }
}
