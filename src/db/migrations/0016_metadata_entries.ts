import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Metadata search (`filter[metadata][key]=value`, issue 31): every key/value pair of an account's
 * or payment's metadata is also a row of `account_metadata` / `payment_metadata`, written in the
 * transaction of every write that sets metadata (src/lists/counters/metadataEntries.ts). The primary key
 * (tenant_id, key, value, record_id) finds a tenant's records with a value of a key in the index
 * alone, on both databases, with one SQL text for both. (A GIN index on PostgreSQL's jsonb
 * would serve `metadata @> …` there, but it cannot lead with the tenant without btree_gin, so a
 * value common in other tenants would be read for every tenant; and SQLite needs this table anyway.)
 *
 * Accounts' metadata changes (PATCH) and accounts are deleted: their rows are also found by
 * record. Payments' metadata is never changed after create, so that index is not paid for.
 * Existing records are copied in here, in SQL (json_each / jsonb_each_text).
 */
export function metadataEntriesMigration(dialect: Dialect) {
  const withoutRowid = dialect === 'sqlite' ? ' without rowid' : '';
  const pairs = (table: string) =>
    dialect === 'postgres'
      ? `select r.tenant_id, kv.key, kv.value, r.id from ${table} r cross join lateral jsonb_each_text(r.metadata) kv`
      : `select r.tenant_id, kv.key, kv.value, r.id from ${table} r, json_each(r.metadata) kv`;
  return {
    async up(db: Kysely<unknown>) {
      for (const [table, records] of [
        ['account_metadata', 'accounts'],
        ['payment_metadata', 'payments'],
      ]) {
        await sql
          .raw(
            `create table ${table} (
              tenant_id text not null,
              key text not null,
              value text not null,
              record_id text not null,
              primary key (tenant_id, key, value, record_id)
            )${withoutRowid}`,
          )
          .execute(db);
        await sql.raw(`insert into ${table} (tenant_id, key, value, record_id) ${pairs(records)}`).execute(db);
      }
      await sql.raw('create index account_metadata_record on account_metadata (record_id)').execute(db);
    },
  };
}
