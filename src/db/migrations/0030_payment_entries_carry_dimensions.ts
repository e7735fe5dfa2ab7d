import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Each payment's metadata entry also holds the payment's `currency`, `card_brand` and `amount`
 * (issue 31): a metadata search beside any of those filters (and a created_at range) is then
 * counted and paged in the entries alone, in created_at order, where each matching entry's
 * payment was read to test them (1M payments, `channel=web & currency=EUR`: 1.25–1.5 s). The
 * columns follow the key, not in it: they order nothing, they are tested in the entries a key's
 * value (and range of created_at) already bounds.
 *
 * - SQLite: the table is WITHOUT ROWID, so its rows are the primary key's b-tree; the columns
 *   after the key are read in the same leaf as the key, no other index needed.
 * - PostgreSQL: the primary key INCLUDEs them, so the walk stays an Index Only Scan (where the
 *   visibility map allows; the seed vacuums).
 *
 * A payment's currency and card_brand never change after create. Its amount does, once: a capture
 * of less than was authorized lowers it (paymentWrites.ts' capturePayment), and that write
 * rewrites the payment's entries' amount in the same transaction (metadataEntries.ts'
 * setEntriesAmount). Accounts' entries carry nothing new (an account's currency and status change).
 *
 * The table is rebuilt as 0023 did (copied in key order, the payments' columns joined in), with
 * its index by value and record (tenant_id, key, value, record_id) as 0023 made it.
 */
export function paymentEntriesCarryDimensionsMigration(dialect: Dialect) {
  const withoutRowid = dialect === 'sqlite' ? ' without rowid' : '';
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  const money = dialect === 'postgres' ? 'bigint' : 'integer';
  const include = dialect === 'postgres' ? ' include (currency, card_brand, amount)' : '';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(
          `create table payment_metadata_carried (
            tenant_id text not null,
            key text not null,
            value text not null,
            created_at ${ts} not null,
            record_id text not null,
            currency text not null,
            card_brand text not null,
            amount ${money} not null,
            primary key (tenant_id, key, value, created_at, record_id)${include}
          )${withoutRowid}`,
        )
        .execute(db);
      await sql
        .raw(
          `insert into payment_metadata_carried (tenant_id, key, value, created_at, record_id, currency, card_brand, amount)
           select e.tenant_id, e.key, e.value, e.created_at, e.record_id, p.currency, p.card_brand, p.amount
           from payment_metadata e join payments p on p.id = e.record_id and p.tenant_id = e.tenant_id
           order by e.tenant_id, e.key, e.value, e.created_at, e.record_id`,
        )
        .execute(db);
      await sql.raw('drop table payment_metadata').execute(db);
      await sql.raw('alter table payment_metadata_carried rename to payment_metadata').execute(db);
      if (dialect === 'postgres')
        await sql.raw('alter table payment_metadata rename constraint payment_metadata_carried_pkey to payment_metadata_pkey').execute(db);
      await sql.raw('create index payment_metadata_value_record on payment_metadata (tenant_id, key, value, record_id)').execute(db);
    },
  };
}
