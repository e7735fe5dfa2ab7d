import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';
import { amountBucket, timeBucket } from './0007_bucket_levels.ts';

/*
 * Counts by every combination of the lists' low-cardinality equality filters, not only account
 * and status (src/lists/counters/countedSlices.ts): list_counts and list_buckets get a column for each
 * new dimension (currency, card_brand; '' = all) in their keys, and are rebuilt whole from the
 * rows, shard 0. Payments are counted by every subset of account, status, currency and card
 * brand; accounts by every subset of status and currency; events by type (kept in `status`).
 * Buckets (levels as 0007 made them) are kept for the whole list and for each single dimension:
 * the new ones, currency and card brand, with the tenant's fine levels. Two indexes serve a
 * currency's or a card brand's rows in amount order (deep pages and range edges of those
 * slices). Written out as it stood, not imported: a migration keeps meaning what it meant.
 */

const DAY = 86_400;

const LEVELS = {
  created_at: { tenant: [16 * DAY, DAY, 3_600, 300], account: [16 * DAY, DAY] },
  amount: { tenant: [1, 2, 3, 4], account: [1, 2] },
} as const;

const BUCKETED = [
  { kind: 'tenant', dims: [] },
  { kind: 'tenant', dims: ['status'] },
  { kind: 'account', dims: ['account_id'] },
  { kind: 'tenant', dims: ['currency'] },
  { kind: 'tenant', dims: ['card_brand'] },
] as const;

const DIMENSIONS = ['account_id', 'status', 'currency', 'card_brand'] as const;
type Dimension = (typeof DIMENSIONS)[number];

/** Each list's record column per dimension it is counted by. */
const COUNTED: Record<string, Partial<Record<Dimension, string>>> = {
  payments: { account_id: 'account_id', status: 'status', currency: 'currency', card_brand: 'card_brand' },
  accounts: { status: 'status', currency: 'currency' },
  events: { status: 'type' },
};

function subsets<T>(items: T[]): T[][] {
  const all: T[][] = [[]];
  for (const d of items) for (const s of all.slice()) all.push([...s, d]);
  return all;
}

export function countedDimensionsMigration(dialect: Dialect) {
  const count = dialect === 'postgres' ? 'bigint' : 'integer';
  const shard = dialect === 'postgres' ? 'smallint' : 'integer';
  // Counters are updated in place all day (0008): room on each page for PostgreSQL to do so.
  const fill = dialect === 'postgres' ? ' with (fillfactor = 70)' : '';
  return {
    async up(db: Kysely<unknown>) {
      await sql`drop table list_counts`.execute(db);
      await sql`drop table list_buckets`.execute(db);
      await sql
        .raw(`create table list_counts (
        tenant_id text not null references tenants (id),
        list text not null,
        account_id text not null,
        status text not null,
        currency text not null,
        card_brand text not null,
        shard ${shard} not null default 0,
        n ${count} not null,
        primary key (tenant_id, list, account_id, status, currency, card_brand, shard)
      )${fill}`)
        .execute(db);
      await sql
        .raw(`create table list_buckets (
        tenant_id text not null references tenants (id),
        list text not null,
        sort_key text not null,
        level integer not null,
        account_id text not null,
        status text not null,
        currency text not null,
        card_brand text not null,
        bucket ${count} not null,
        shard ${shard} not null default 0,
        n ${count} not null,
        primary key (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, shard)
      )${fill}`)
        .execute(db);
      for (const [list, columns] of Object.entries(COUNTED)) {
        const dims = DIMENSIONS.filter((d) => columns[d] !== undefined);
        for (const subset of subsets(dims)) {
          const values = DIMENSIONS.map((d) => (subset.includes(d) ? columns[d] : "''"));
          await sql
            .raw(`insert into list_counts (tenant_id, list, account_id, status, currency, card_brand, n)
            select tenant_id, '${list}', ${values.join(', ')}, count(*) from ${list} group by 1, 2, 3, 4, 5, 6`)
            .execute(db);
        }
      }
      for (const slice of BUCKETED) {
        for (const [sortKey, kinds] of Object.entries(LEVELS)) {
          for (const [level, width] of kinds[slice.kind].entries()) {
            const bucket = sortKey === 'created_at' ? timeBucket(width, dialect) : amountBucket(width);
            const values = DIMENSIONS.map((d) => ((slice.dims as readonly string[]).includes(d) ? d : "''"));
            await sql
              .raw(`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
              select tenant_id, 'payments', '${sortKey}', ${level}, ${values.join(', ')}, ${bucket}, count(*)
              from payments group by ${['tenant_id', ...slice.dims, bucket].join(', ')}`)
              .execute(db);
          }
        }
      }
      await sql`create index payments_tenant_currency_amount on payments (tenant_id, currency, amount, id)`.execute(db);
      await sql`create index payments_tenant_brand_amount on payments (tenant_id, card_brand, amount, id)`.execute(db);
    },
  };
}
