import { sql, type Kysely } from 'kysely';

/**
 * One account's payments in one status ("this customer's failed payments"), newest or oldest
 * first. Without it, the page read the tenant-wide status index and dropped other accounts'
 * rows, so its cost grew with the tenant (docs/query-plans.md).
 */
export const accountStatusIndexMigration = {
  async up(db: Kysely<unknown>) {
    await sql`create index payments_tenant_account_status_created on payments (tenant_id, account_id, status, created_at, id)`.execute(db);
  },
};
