import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/**
 * Counts per bucket of a sort key (src/lists/counters/sortBuckets.ts), per slice of the payments list,
 * kept in step by every write in its own transaction: a page at any depth is found by summing
 * them, exact at request time (docs/performance.md). Filled from the rows already there by
 * 0007_bucket_levels, which rebuilds them with the levels in use since (this migration once
 * filled them through live code, which a migration must not use).
 */
export function listBucketsMigration(dialect: Dialect) {
  const count = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(`create table list_buckets (
        tenant_id text not null references tenants (id),
        list text not null,
        sort_key text not null,
        level integer not null,
        account_id text not null,
        status text not null,
        bucket ${count} not null,
        n ${count} not null,
        primary key (tenant_id, list, sort_key, level, account_id, status, bucket)
      )`)
        .execute(db);
    },
  };
}
