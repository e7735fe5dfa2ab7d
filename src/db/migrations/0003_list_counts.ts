import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/**
 * Exact totals without counting rows: one row per (tenant, list, account, status) slice the
 * API pages most, '' meaning "all". Kept in step by every write, in the write's transaction.
 */
export function listCountsMigration(dialect: Dialect) {
  const count = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(`create table list_counts (
        tenant_id text not null references tenants (id),
        list text not null,
        account_id text not null,
        status text not null,
        n ${count} not null,
        primary key (tenant_id, list, account_id, status)
      )`)
        .execute(db);
      // Backfill from whatever is already there.
      for (const [accountId, status] of [
        ["''", "''"],
        ['account_id', "''"],
        ["''", 'status'],
        ['account_id', 'status'],
      ]) {
        await sql
          .raw(`insert into list_counts (tenant_id, list, account_id, status, n)
          select tenant_id, 'payments', ${accountId}, ${status}, count(*) from payments group by 1, 2, 3, 4`)
          .execute(db);
      }
      for (const status of ["''", 'status']) {
        await sql
          .raw(`insert into list_counts (tenant_id, list, account_id, status, n)
          select tenant_id, 'accounts', '', ${status}, count(*) from accounts group by 1, 2, 3, 4`)
          .execute(db);
      }
    },
  };
}
