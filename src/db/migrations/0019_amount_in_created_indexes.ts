import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * The payments' `created_at` indexes of the bucketed slices (the whole list, a status, a
 * currency, a card brand, an account) carry `amount` as well, so that a list sorted by
 * `created_at` and narrowed by an amount range (`filter[amount][gte]=1000`) can skip to a deep
 * page in the index alone: each entry's amount is tested there, no table row is read for it.
 * The order the indexes give is unchanged: PostgreSQL keeps `amount` as an included column,
 * SQLite (which has no INCLUDE) after `id`, which is unique, so it never orders two entries.
 * Each index is rebuilt under its own name (writes to payments wait while it is).
 *
 * PostgreSQL, given two indexes of equal cost, takes the newer one, and costs are equal on
 * tables too small for statistics to tell (a new tenant's, the tests'): rebuilt, the created_at
 * indexes would then be read for `filter[card_last4]=…` or one account's payments in a status,
 * the filter tested row by row. The indexes that bound those filters are rebuilt after them, as
 * they were, so they stay the newer.
 */

const INDEXES = [
  { name: 'payments_tenant_created', columns: 'tenant_id, created_at, id' },
  { name: 'payments_tenant_status_created', columns: 'tenant_id, status, created_at, id' },
  { name: 'payments_tenant_currency_created', columns: 'tenant_id, currency, created_at, id' },
  { name: 'payments_tenant_brand_created', columns: 'tenant_id, card_brand, created_at, id' },
  { name: 'payments_tenant_account_created', columns: 'tenant_id, account_id, created_at, id' },
] as const;

const REBUILT_AFTER = [
  { name: 'payments_tenant_last4', columns: 'tenant_id, card_last4, created_at, id' },
  { name: 'payments_tenant_reference', columns: 'tenant_id, reference, created_at, id' },
  { name: 'payments_tenant_account_status_created', columns: 'tenant_id, account_id, status, created_at, id' },
] as const;

export function amountInCreatedIndexesMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      for (const { name, columns } of INDEXES) {
        const shape = dialect === 'postgres' ? `(${columns}) include (amount)` : `(${columns}, amount)`;
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
