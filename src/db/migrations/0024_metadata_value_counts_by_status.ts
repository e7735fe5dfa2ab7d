import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Metadata search × status (issue 31 item 4): metadata_value_counts (migration 0020) counts each
 * value of each key per record status too, so that the total of `filter[metadata][k]=…` with
 * `filter[status]=…` (any of each) is a sum of a few maintained rows, and the plan of its page is
 * chosen by its exact number of matches (src/lists/plan/metadataPlans.ts), where both were counted
 * row by row (the entries joined with the records: 10 s at 10M payments on PostgreSQL).
 *
 * A column of the same table, not a sibling table: a create adds the rows it added before (one
 * per entry, now in its status), so creates cost what they did; one place holds the counts,
 * so a value's total and its per-status counts cannot disagree; a value's total reads its
 * statuses' rows (at most seven per shard). A status change moves its record's entries from one
 * status's rows to the other's, in its transaction (src/lists/counters/metadataValueCounts.ts).
 *
 * The table is rebuilt (a primary key cannot change in place on SQLite), the counts taken again
 * from the entries joined with their records, grouped by status, as shard 0 (as 0020 did).
 */
export function metadataValueCountsByStatusMigration(dialect: Dialect) {
  const withoutRowid = dialect === 'sqlite' ? ' without rowid' : '';
  return {
    async up(db: Kysely<unknown>) {
      await sql.raw('drop table metadata_value_counts').execute(db);
      await sql
        .raw(
          `create table metadata_value_counts (
            tenant_id text not null,
            list text not null,
            key text not null,
            value text not null,
            status text not null,
            shard ${dialect === 'postgres' ? 'smallint' : 'integer'} not null,
            n bigint not null,
            primary key (tenant_id, list, key, value, status, shard)
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
            `insert into metadata_value_counts (tenant_id, list, key, value, status, shard, n)
             select e.tenant_id, '${list}', e.key, e.value, r.status, 0, count(*)
             from ${entries} e join ${list} r on r.id = e.record_id and r.tenant_id = e.tenant_id
             group by e.tenant_id, e.key, e.value, r.status`,
          )
          .execute(db);
      }
    },
  };
}
