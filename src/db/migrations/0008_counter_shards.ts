import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Every count row (list_counts, list_buckets) gets a shard number in its key. A write adds its
 * deltas to the rows of one shard, chosen at random on PostgreSQL, and readers sum the shards:
 * concurrent writers of one tenant no longer queue on the same few rows (the tenant's total and
 * the current time buckets), which held every payment write of a tenant in one line (measured:
 * writers waited on each other's row locks most of their time at 16 in flight). SQLite has one
 * writer at a time and keeps shard 0. Existing rows become shard 0.
 */

const TABLES = {
  list_counts: ['tenant_id text not null references tenants (id)', 'list text not null', 'account_id text not null', 'status text not null'],
  list_buckets: [
    'tenant_id text not null references tenants (id)',
    'list text not null',
    'sort_key text not null',
    'level integer not null',
    'account_id text not null',
    'status text not null',
    'bucket integer not null',
  ],
} as const;

const KEYS = {
  list_counts: 'tenant_id, list, account_id, status',
  list_buckets: 'tenant_id, list, sort_key, level, account_id, status, bucket',
} as const;

export function counterShardsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of ['list_counts', 'list_buckets'] as const) {
        if (dialect === 'postgres') {
          await sql.raw(`alter table ${table} add column shard smallint not null default 0`).execute(db);
          await sql.raw(`alter table ${table} drop constraint ${table}_pkey`).execute(db);
          await sql.raw(`alter table ${table} add primary key (${KEYS[table]}, shard)`).execute(db);
          // Counters are updated in place all day: room on each page lets PostgreSQL do so without new index entries.
          await sql.raw(`alter table ${table} set (fillfactor = 70)`).execute(db);
          continue;
        }
        // SQLite cannot change a primary key in place: a new table, the rows copied as shard 0.
        await sql
          .raw(
            `create table ${table}_sharded (${TABLES[table].join(', ')}, shard integer not null default 0, n integer not null, primary key (${KEYS[table]}, shard))`,
          )
          .execute(db);
        await sql.raw(`insert into ${table}_sharded (${KEYS[table]}, shard, n) select ${KEYS[table]}, 0, n from ${table}`).execute(db);
        await sql.raw(`drop table ${table}`).execute(db);
        await sql.raw(`alter table ${table}_sharded rename to ${table}`).execute(db);
      }
    },
  };
}
