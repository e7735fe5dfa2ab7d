import type { CompiledQuery, Compilable, Kysely } from 'kysely';
import type { Database, Dialect } from '../../db/schema.ts';
import type { PageParams } from '../request/pageParams.ts';
import type { ListQuery } from '../request/parseListQuery.ts';
import type { ListScope, ListTable } from '../request/listScope.ts';
import { bucketSearchOf } from '../plan/bucketSearch.ts';
import { withLeadDimension } from '../plan/leadDimension.ts';
import { listShapeOf } from '../plan/listShape.ts';
import { DEFAULT_TUNING } from '../plan/listTuning.ts';
import { searchesMetadata, totalIsValueCount } from '../plan/metadataPlans.ts';
import type { OneStatementPlan } from '../plan/pagePlan.ts';
import { pageRequestOf, planPage, rowsQueryOf, totalWayOf } from '../plan/planPage.ts';
import { pageStatement, totalSelect } from './pageStatements.ts';
import { pageTemplateOrStatement } from './pageTemplates.ts';

/** The statements the service runs, for exports, `npm run explain`, the plan test and the bench's "SQL alone". */

/** SQLite: a keyed filter whose counts chose its plan (keyedPlans.ts): its column, and how its rows are read (RowsWriting's `walk`). */
export interface KeyedPlan {
  column: string;
  walk: boolean | undefined;
}

/** The select of a list's exact total as the service reads it (`n`); `keyed`: the keyed filter's plan, whose index then counts the total. */
export function listTotalSelect(db: Kysely<Database>, dialect: Dialect, table: ListTable, scope: ListScope, query: ListQuery, keyed?: KeyedPlan) {
  const list = listShapeOf(table, scope, dialect === 'sqlite' ? withLeadDimension(table, scope, query) : query);
  const counted = searchesMetadata(query) && totalIsValueCount(scope, query);
  return {
    select: totalSelect(db, dialect, list, totalWayOf(list, keyed?.column)),
    from: list.slice ? 'list_counts' : list.ranged ? 'list_buckets and edge rows' : counted ? 'metadata_value_counts' : 'count',
  };
}

/** The query of every row of a list (an export's), written for a keyed plan as a page's rows are. */
export function wholeListQuery(dialect: Dialect, table: ListTable, scope: ListScope, query: ListQuery, keyed?: KeyedPlan): ListQuery {
  return rowsQueryOf(
    dialect,
    listShapeOf(table, scope, query),
    keyed ? { keyed: keyed.column, ...(keyed.walk !== undefined ? { walk: keyed.walk } : {}) } : {},
  );
}

/** The one statement that reads one of a list's first pages and its total, as the service sends it (no count read before it). */
export function offsetPageQuery(
  db: Kysely<Database>,
  dialect: Dialect,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
): CompiledQuery {
  const request = { ...pageRequestOf(dialect, DEFAULT_TUNING, table, scope, query, paging), asFirstPage: true, placed: undefined };
  return pageTemplateOrStatement(db, dialect, planPage(request, {}) as OneStatementPlan, paging);
}

/** The one statement that reads a deep page of a bucketed list on `dialect`; undefined for other lists. */
export function bucketPageQuery(
  db: Kysely<Database>,
  dialect: Dialect,
  table: ListTable,
  scope: ListScope,
  query: ListQuery,
  paging: PageParams,
): Compilable | undefined {
  const list = listShapeOf(table, scope, query);
  const search = bucketSearchOf(list, query);
  return search && pageStatement(db, dialect, { way: 'buckets', list, total: totalWayOf(list), search, rows: {} }, paging);
}
