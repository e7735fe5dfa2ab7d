import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * The payments' `amount` indexes of the bucketed slices carry `created_at` as well, as 0019 made
 * the `created_at` indexes carry `amount`: a list sorted by `created_at` and narrowed to a few
 * rows by an amount range (`filter[amount][lte]=100`) is read from the range's index and sorted
 * there, no table row read for the sort but the page's (lists/plan/rangePlans.ts); a list sorted by
 * `amount` and narrowed by a `created_at` range tests each entry's date in the index. The order
 * the indexes give is unchanged: PostgreSQL keeps `created_at` as an included column, SQLite
 * (which has no INCLUDE) after `id`, which is unique, so it never orders two entries.
 *
 * As in 0019: PostgreSQL takes the newer of two indexes of equal cost (a table too small for
 * statistics to tell), so the indexes that bound other filters are rebuilt after these, as they
 * were, and stay the newer.
 */

const INDEXES = [
  { name: 'payments_tenant_amount', columns: 'tenant_id, amount, id' },
  { name: 'payments_tenant_status_amount', columns: 'tenant_id, status, amount, id' },
  { name: 'payments_tenant_currency_amount', columns: 'tenant_id, currency, amount, id' },
  { name: 'payments_tenant_brand_amount', columns: 'tenant_id, card_brand, amount, id' },
  { name: 'payments_tenant_account_amount', columns: 'tenant_id, account_id, amount, id' },
] as const;

/** Rebuilt after the others, so they stay the newest (0028 rebuilds them so too). */
export const REBUILT_AFTER = [
  { name: 'payments_tenant_last4', columns: 'tenant_id, card_last4, created_at, id' },
  { name: 'payments_tenant_reference', columns: 'tenant_id, reference, created_at, id' },
  { name: 'payments_tenant_account_status_created', columns: 'tenant_id, account_id, status, created_at, id' },
] as const;

export function amountIndexesCarryCreatedAtMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      for (const { name, columns } of INDEXES) {
        const shape = dialect === 'postgres' ? `(${columns}) include (created_at)` : `(${columns}, created_at)`;
        await sql.raw(`drop index ${name}`).execute(db);
        await sql.raw(`create index ${name} on payments ${shape}`).execute(db);
      }
      if (dialect !== 'postgres') return;
      for (const { name, columns } of REBUILT_AFTER) {
        await sql.raw(`drop index ${name}`).execute(db);
        await sql.raw(`create index ${name} on payments (${columns})`).execute(db);
      }
    },
  };
}
