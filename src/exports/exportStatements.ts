import { sql, type Kysely } from 'kysely';
import type { Database, Dialect } from '../db/schema.ts';
import type { ListQuery, ListScope, ListTable } from '../lists/index.ts';
import {
  listTotalSelect,
  wholeListQuery,
  type KeyedPlan,
  applyConditions,
  applyOrder,
  keyedConditionOf,
  keyedCounts,
  keyedPlanOf,
  sortedIdsListSelect,
  wholeListSelect,
} from '../lists/index.ts';

/**
 * SQLite: the plan of a keyed filter (a card's last four, a reference, an email) for the whole list,
 * chosen by its counts as a page's is (keyedFilters.ts, decision 0028): SQLite keeps no statistics,
 * so it would walk the wrong index. The counts are read before the snapshot: they choose a plan,
 * never an answer.
 */
async function keyedExportPlan(db: Kysely<Database>, dialect: Dialect, table: ListTable, scope: ListScope, query: ListQuery): Promise<KeyedPlan | undefined> {
  const keyed = dialect === 'sqlite' ? keyedConditionOf(table, scope, query) : undefined;
  if (!keyed) return undefined;
  const counts = await keyedCounts(db, table, scope, query, keyed);
  const plan = keyedPlanOf(counts, query, keyed, 0, Math.max(1, counts.keyed), false);
  return plan && { column: keyed.column, walk: plan.walk };
}

/**
 * PostgreSQL: the list's rows in its order, the tenant named as `tenant_id` itself. The list's
 * own select (wholeListSelect) writes a metadata search's tenant as `(tenant_id || '')` to keep
 * SQLite off the tenant's indexes; PostgreSQL drives from the entries either way, and Citus
 * routes the COPY to the tenant's shard only by `tenant_id = …` (docs/scaling.md).
 */
function tenantListSelect(db: Kysely<Database>, table: ListTable, scope: ListScope, query: ListQuery) {
  let select = db
    .selectFrom(table as 'payments')
    .select('resource')
    .where('tenant_id', '=', scope.tenantId);
  if (scope.accountId !== undefined) select = select.where('account_id', '=', scope.accountId);
  if (scope.endpointId !== undefined) select = select.where(sql.ref('endpoint_id'), '=', scope.endpointId);
  return applyOrder(applyConditions(select, query, scope.tenantId), query);
}

/** What an export reads: the list's total (as the list takes it) and every row in its order. */
export async function exportStatements(db: Kysely<Database>, dialect: Dialect, table: ListTable, scope: ListScope, query: ListQuery) {
  const keyed = await keyedExportPlan(db, dialect, table, scope, query);
  const rows = wholeListQuery(dialect, table, scope, query, keyed);
  return {
    total: listTotalSelect(db, dialect, table, scope, query, keyed).select,
    // The keyed filter's rows read and sorted: their ids alone sorted, then the rows by id, as a page's are.
    rows:
      dialect === 'postgres'
        ? tenantListSelect(db, table, scope, rows)
        : (keyed?.walk === false ? sortedIdsListSelect : wholeListSelect)(db, table, scope, rows),
  };
}
