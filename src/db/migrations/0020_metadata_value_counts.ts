import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Metadata search's counts (issue 31 item 4): how many of a tenant's accounts or payments hold
 * each value of each metadata key, so that the total of a search of one key is a few rows read
 * (the sum over its values and shards), not its entries counted (66k index entries for
 * `channel=web` at 1M payments, 668k at 10M), and the plan choice of every metadata search reads
 * the same sums (src/lists/counters/metadataValueCounts.ts). Kept exact by every write of the entry
 * tables, in the same transaction; sharded as list_counts is (migration 0008): a write adds to
 * the rows of its shard, readers sum them, so concurrent creates carrying the same value do not
 * queue on one row. Existing entries are counted in here, as shard 0.
 */
export function metadataValueCountsMigration(dialect: Dialect) {
  const withoutRowid = dialect === 'sqlite' ? ' without rowid' : '';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(
          `create table metadata_value_counts (
            tenant_id text not null,
            list text not null,
            key text not null,
            value text not null,
            shard ${dialect === 'postgres' ? 'smallint' : 'integer'} not null,
            n bigint not null,
            primary key (tenant_id, list, key, value, shard)
          )${withoutRowid}`,
        )
        .execute(db);
      // Counters are updated in place all day: room on each page lets PostgreSQL do so without new index entries (as 0008).
      if (dialect === 'postgres') await sql.raw('alter table metadata_value_counts set (fillfactor = 70)').execute(db);
      for (const [list, entries] of [
        ['accounts', 'account_metadata'],
        ['payments', 'payment_metadata'],
      ]) {
        await sql
          .raw(
            `insert into metadata_value_counts (tenant_id, list, key, value, shard, n)
             select tenant_id, '${list}', key, value, 0, count(*) from ${entries} group by tenant_id, key, value`,
          )
          .execute(db);
      }
    },
  };
}
