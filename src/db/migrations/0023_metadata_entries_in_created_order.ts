import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Metadata search in list order (issue 31 item 4): each entry of account_metadata /
 * payment_metadata also holds its record's created_at (set at create, never changed), and the
 * primary key becomes (tenant_id, key, value, created_at, record_id): the entries of one value
 * in the list's default order (created_at, then id; either direction). A search of one key with
 * one value in created_at order over the whole list reads its page from that key alone: the
 * OFFSET skipped over narrow index entries, then only the page's records read by id
 * (src/lists/sql/entryOrderPage.ts), where a deep page read and sorted every matching record.
 *
 * Both tables are rebuilt (a primary key cannot change in place on SQLite, and on PostgreSQL
 * the new key is a new index all the same), created_at copied from the records, in key order.
 * The old key stays as an index, (tenant_id, key, value, record_id): the probe of a row's entry
 * (a walk of the list's own index, applyListQuery.ts) knows the row's id, and its created_at only
 * by reading the row when the index walked lacks it (amount, name): one entry found by id in the
 * index alone, as before. The account entries keep their index by record (PATCH and delete find
 * them by record). 0016 stays as it was.
 */
export function metadataEntriesInCreatedOrderMigration(dialect: Dialect) {
  const withoutRowid = dialect === 'sqlite' ? ' without rowid' : '';
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      for (const [table, records] of [
        ['account_metadata', 'accounts'],
        ['payment_metadata', 'payments'],
      ]) {
        await sql
          .raw(
            `create table ${table}_ordered (
              tenant_id text not null,
              key text not null,
              value text not null,
              created_at ${ts} not null,
              record_id text not null,
              primary key (tenant_id, key, value, created_at, record_id)
            )${withoutRowid}`,
          )
          .execute(db);
        await sql
          .raw(
            `insert into ${table}_ordered (tenant_id, key, value, created_at, record_id)
             select e.tenant_id, e.key, e.value, r.created_at, e.record_id
             from ${table} e join ${records} r on r.id = e.record_id and r.tenant_id = e.tenant_id
             order by e.tenant_id, e.key, e.value, r.created_at, e.record_id`,
          )
          .execute(db);
        await sql.raw(`drop table ${table}`).execute(db);
        await sql.raw(`alter table ${table}_ordered rename to ${table}`).execute(db);
        if (dialect === 'postgres') await sql.raw(`alter table ${table} rename constraint ${table}_ordered_pkey to ${table}_pkey`).execute(db);
        await sql.raw(`create index ${table}_value_record on ${table} (tenant_id, key, value, record_id)`).execute(db);
      }
      await sql.raw('create index account_metadata_record on account_metadata (record_id)').execute(db);
    },
  };
}
