import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * The index of a card's last four digits carries the columns a list narrowed by them is also
 * filtered and sorted by: `amount`, `status`, `currency` and `card_brand`. A card's payments are few against the
 * list (lists/sql/keyedFilters.ts reads them from this index when its counts say so), but each one's
 * row was read to test its status or to sort it by amount: at 1M payments `card_last4=1097`
 * (2,232 rows) sorted by amount, or three cards × `succeeded` (4,298 of 6,200), took 10–20 ms on
 * SQLite against 1 ms for an unfiltered page. With the columns in the index both are counted and
 * sorted in it alone; only the page's rows are read.
 *
 * The order the index gives is unchanged: PostgreSQL keeps the columns as included ones, SQLite
 * (which has no INCLUDE) after `id`, which is unique, so they never order two entries. A payment's
 * status change now rewrites this index's entry too, as it does the status indexes'.
 */
/** The index's shape from this migration on (0028 rebuilds it so again on PostgreSQL). */
export function last4IndexShape(dialect: Dialect): string {
  return dialect === 'postgres'
    ? '(tenant_id, card_last4, created_at, id) include (amount, status, currency, card_brand)'
    : '(tenant_id, card_last4, created_at, id, amount, status, currency, card_brand)';
}

export function last4IndexCarriesFiltersMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      const shape = last4IndexShape(dialect);
      await sql.raw('drop index payments_tenant_last4').execute(db);
      await sql.raw(`create index payments_tenant_last4 on payments ${shape}`).execute(db);
    },
  };
}
