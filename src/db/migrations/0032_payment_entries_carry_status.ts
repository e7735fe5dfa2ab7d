import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Each payment's metadata entry also holds the payment's `status`, and the entries are indexed in
 * amount order too (issue 31): a metadata search beside a status filter is then counted and paged
 * in the entries alone, and one sorted by amount is walked in the entries' amount order, where
 * each entry's payment was read to test its status and every matching payment was walked in the
 * amount index (10M payments on PostgreSQL, `channel=web,pos & status=succeeded`, sort=-amount,
 * a page at 90 %: 10 s, a 503; 1M on SQLite, the middle page: 1.2 s).
 *
 * Unlike the columns 0030 carries, a status changes (capture, cancel, refund): the write
 * that moves the payment rewrites its entries' status in the same transaction, as a smaller
 * capture rewrites their amount (metadataEntries.ts' setEntriesCarried). A payment has a few keys.
 *
 * - The table is rebuilt as 0030 did, `status` after `amount`: on SQLite (WITHOUT ROWID) the
 *   key's leaf holds it; on PostgreSQL the primary key INCLUDEs it (index-only walks).
 * - `payment_metadata_amount_order` (tenant_id, key, value, amount, record_id): a value's entries
 *   in the list's amount order (ties on id in the same direction), carrying what is tested in the
 *   entries (on SQLite as further columns: the primary key's created_at comes with every entry of
 *   a WITHOUT ROWID table's index; on PostgreSQL INCLUDEd).
 */
export function paymentEntriesCarryStatusMigration(dialect: Dialect) {
  const withoutRowid = dialect === 'sqlite' ? ' without rowid' : '';
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  const money = dialect === 'postgres' ? 'bigint' : 'integer';
  const include = dialect === 'postgres' ? ' include (currency, card_brand, amount, status)' : '';
  const amountOrder =
    dialect === 'postgres'
      ? 'create index payment_metadata_amount_order on payment_metadata (tenant_id, key, value, amount, record_id) include (status, currency, card_brand, created_at)'
      : 'create index payment_metadata_amount_order on payment_metadata (tenant_id, key, value, amount, record_id, status, currency, card_brand)';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(
          `create table payment_metadata_status (
            tenant_id text not null,
            key text not null,
            value text not null,
            created_at ${ts} not null,
            record_id text not null,
            currency text not null,
            card_brand text not null,
            amount ${money} not null,
            status text not null,
            primary key (tenant_id, key, value, created_at, record_id)${include}
          )${withoutRowid}`,
        )
        .execute(db);
      await sql
        .raw(
          `insert into payment_metadata_status (tenant_id, key, value, created_at, record_id, currency, card_brand, amount, status)
           select e.tenant_id, e.key, e.value, e.created_at, e.record_id, e.currency, e.card_brand, e.amount, p.status
           from payment_metadata e join payments p on p.id = e.record_id and p.tenant_id = e.tenant_id
           order by e.tenant_id, e.key, e.value, e.created_at, e.record_id`,
        )
        .execute(db);
      await sql.raw('drop table payment_metadata').execute(db);
      await sql.raw('alter table payment_metadata_status rename to payment_metadata').execute(db);
      if (dialect === 'postgres')
        await sql.raw('alter table payment_metadata rename constraint payment_metadata_status_pkey to payment_metadata_pkey').execute(db);
      await sql.raw('create index payment_metadata_value_record on payment_metadata (tenant_id, key, value, record_id)').execute(db);
      await sql.raw(amountOrder).execute(db);
    },
  };
}
