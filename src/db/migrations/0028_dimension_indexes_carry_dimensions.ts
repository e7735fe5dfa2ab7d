import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';
import { REBUILT_AFTER } from './0026_amount_indexes_carry_created_at.ts';
import { last4IndexShape } from './0027_last4_index_carries_filters.ts';

/*
 * PostgreSQL: the payments' indexes of one counted dimension (status, currency, card_brand; by
 * created_at and by amount) carry the other two as included columns, so a list that two of them
 * narrow (`card_brand=visa & status=failed`, `status=succeeded & currency=EUR`), which no
 * maintained count covers, is counted in one index alone: the index of the value the plan picks
 * (lists/plan/valuePlans.ts) bounds the range, the other value is tested on each entry there, no
 * table row read. Measured at 1M payments: `visa × failed × amount ≥ 1000` counted along
 * `payments_tenant_status_amount`, 62,725 entries each row read for its brand, 0.3–0.4 s; in the
 * index alone 29 ms. A deep page's ids are skipped in the same index alone too (deferred join).
 * The order the indexes give is unchanged (included columns order nothing).
 *
 * As in 0019 and 0026: PostgreSQL takes the newer of two indexes of equal cost (a table too small
 * for statistics to tell), so the indexes that bound other filters are rebuilt after these, as
 * they were, and stay the newer. SQLite is left as it was: it counts these lists in its own time
 * (a covering index there would change which index its planner, which keeps no statistics, takes).
 */

const INDEXES = [
  { name: 'payments_tenant_status_created', columns: 'tenant_id, status, created_at, id', include: 'amount, currency, card_brand' },
  { name: 'payments_tenant_currency_created', columns: 'tenant_id, currency, created_at, id', include: 'amount, status, card_brand' },
  { name: 'payments_tenant_brand_created', columns: 'tenant_id, card_brand, created_at, id', include: 'amount, status, currency' },
  { name: 'payments_tenant_status_amount', columns: 'tenant_id, status, amount, id', include: 'created_at, currency, card_brand' },
  { name: 'payments_tenant_currency_amount', columns: 'tenant_id, currency, amount, id', include: 'created_at, status, card_brand' },
  { name: 'payments_tenant_brand_amount', columns: 'tenant_id, card_brand, amount, id', include: 'created_at, status, currency' },
] as const;

/** Drops an index and creates it again as `shape` on payments: the newest index from then on. */
export async function rebuilt(db: Kysely<unknown>, name: string, shape: string) {
  await sql.raw(`drop index ${name}`).execute(db);
  await sql.raw(`create index ${name} on payments ${shape}`).execute(db);
}

export function dimensionIndexesCarryDimensionsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      for (const { name, columns, include } of INDEXES) await rebuilt(db, name, `(${columns}) include (${include})`);
      // The same indexes 0026 rebuilt last, in its order; the last four's as 0027 made it.
      for (const { name, columns } of REBUILT_AFTER) await rebuilt(db, name, name === 'payments_tenant_last4' ? last4IndexShape(dialect) : `(${columns})`);
    },
  };
}
