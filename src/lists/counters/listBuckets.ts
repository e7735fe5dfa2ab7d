import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Dialect, ListBucketTable } from '../../db/schema.ts';
import { mergeDeltas } from './mergeDeltas.ts';
import { BUCKETED_SLICES, DIMENSIONS, sliceKeyOf, type SliceKey } from './countedSlices.ts';
import { amountClassDeltas, amountClassRebuildStatements } from './amountClassBuckets.ts';
import { BUCKETED_COLUMNS, bucketLevels, type BucketedColumn, type SliceKind } from './sortBuckets.ts';

/** Where a payment sits in every bucketed order: what a write changes. */
export interface PaymentPosition {
  account_id: string;
  status: string;
  currency: string;
  card_brand: string;
  created_at: string;
  amount: number;
}

export interface BucketDelta extends SliceKey {
  /** A bucketed column, or one amount class's created_at (amountClassBuckets.ts). */
  sortKey: BucketedColumn | string;
  level: number;
  bucket: number;
  delta: number;
}

/** The slices a payment is bucketed in (countedSlices.ts; '' = all). */
export function slicesOf(p: PaymentPosition): Array<SliceKey & { kind: SliceKind }> {
  return BUCKETED_SLICES.map((s) => ({ ...sliceKeyOf(p, s.dims), kind: s.kind }));
}

/** A payment's value of a bucketed sort key (created_at as epoch ms). */
export function sortValueOf(p: PaymentPosition, column: BucketedColumn): number {
  return column === 'created_at' ? Date.parse(p.created_at) : p.amount;
}

function bucketsOf(p: PaymentPosition, delta: number): BucketDelta[] {
  const out: BucketDelta[] = [];
  for (const slice of slicesOf(p)) {
    for (const sortKey of BUCKETED_COLUMNS) {
      for (const level of bucketLevels(sortKey, slice.kind)) {
        out.push({
          account_id: slice.account_id,
          status: slice.status,
          currency: slice.currency,
          card_brand: slice.card_brand,
          sortKey,
          level: level.level,
          bucket: level.of(sortValueOf(p, sortKey)),
          delta,
        });
      }
    }
  }
  out.push(...amountClassDeltas(p, delta));
  return out;
}

/** What moving a payment from `before` to `after` (either absent: created, removed) does to the buckets. */
export function paymentBucketDeltas(before: PaymentPosition | undefined, after: PaymentPosition | undefined): BucketDelta[] {
  return [...(before ? bucketsOf(before, -1) : []), ...(after ? bucketsOf(after, 1) : [])];
}

function keyOf(d: BucketDelta): string {
  return [d.sortKey, String(d.level).padStart(2, '0'), ...DIMENSIONS.map((dim) => d[dim]), String(d.bucket).padStart(17, '0')].join('\u0000');
}

/** A list_buckets row as written. */
export type BucketRow = Omit<ListBucketTable, 'shard'> & { shard: number };

/** The list_buckets rows (of one shard) deltas add to: one per bucket, zeros dropped, in the global order. */
export function bucketRows(tenantId: string, deltas: BucketDelta[], shard = 0): BucketRow[] {
  return mergeDeltas(deltas, keyOf).map((d) => ({
    tenant_id: tenantId,
    list: 'payments',
    sort_key: d.sortKey,
    level: d.level,
    account_id: d.account_id,
    status: d.status,
    currency: d.currency,
    card_brand: d.card_brand,
    bucket: d.bucket,
    shard,
    n: d.delta,
  }));
}

/**
 * Applies bucket deltas to the rows of one shard (counterShard.ts) inside the caller's
 * transaction, as one multi-row upsert. Rows are written in one global order (after
 * list_counts, which every writer touches first) so two concurrent writers on PostgreSQL lock
 * them in the same order and cannot deadlock.
 */
export async function adjustBuckets(trx: Transaction<Database>, tenantId: string, deltas: BucketDelta[], shard = 0): Promise<void> {
  const rows = bucketRows(tenantId, deltas, shard);
  // Statements of at most 1000 rows (11 parameters each: within SQLite's 32,766), in the same order.
  for (let i = 0; i < rows.length; i += 1000) {
    await trx
      .insertInto('list_buckets')
      .values(rows.slice(i, i + 1000))
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'list', 'sort_key', 'level', 'account_id', 'status', 'currency', 'card_brand', 'bucket', 'shard'])
          .doUpdateSet({ n: sql`list_buckets.n + excluded.n` }),
      )
      .execute();
  }
}

/**
 * Rebuilds the buckets of one tenant (or of every tenant) from its rows, after bulk loads and
 * in the migration that introduced them. Run inside a transaction.
 */
export async function rebuildBuckets(db: Kysely<Database> | Transaction<Database>, dialect: Dialect, tenantId?: string): Promise<void> {
  const only = tenantId === undefined ? sql`` : sql`where tenant_id = ${tenantId}`;
  await sql`delete from list_buckets ${only}`.execute(db);
  for (const sortKey of BUCKETED_COLUMNS) {
    for (const slice of BUCKETED_SLICES) {
      for (const level of bucketLevels(sortKey, slice.kind)) {
        const bucket = sql.raw(level.sql(dialect));
        const groups = [sql.ref('tenant_id'), ...slice.dims.map((d) => sql.ref(d)), bucket];
        const values = DIMENSIONS.map((d) => (slice.dims.includes(d) ? sql.ref(d) : sql`''`));
        await sql`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
          select tenant_id, 'payments', ${sql.lit(sortKey)}, ${sql.lit(level.level)}, ${sql.join(values)}, ${bucket}, count(*)
          from payments ${only}
          group by ${sql.join(groups)}`.execute(db);
      }
    }
  }
  for (const statement of amountClassRebuildStatements(dialect, only)) await statement.execute(db);
}
