import { sql, type Transaction } from 'kysely';
import type { Database, Dialect, ListCountTable } from '../../db/schema.ts';
import { rebuildBuckets } from './listBuckets.ts';
import { mergeDeltas } from './mergeDeltas.ts';
import { rebuildValueCounts } from './metadataValueCounts.ts';
import { COUNTED_SLICES, DIMENSION_COLUMN, DIMENSIONS, sliceKeyOf, type CountedList, type Dimension, type SliceKey } from './countedSlices.ts';

export type { CountedList } from './countedSlices.ts';

/** One counted slice of a list (countedSlices.ts): a value per dimension, '' for all. */
export interface CountKey extends SliceKey {
  list: CountedList;
}

export interface CountDelta extends CountKey {
  delta: number;
}

/** The slices one record is counted in (countedSlices.ts): one per combination of its dimensions. */
function countKeys(list: CountedList, values: Partial<SliceKey>): CountKey[] {
  return COUNTED_SLICES[list].map((dims) => ({ list, ...sliceKeyOf(values, dims) }));
}

/** What a payment is counted by. */
export interface PaymentDimensions {
  account_id: string;
  status: string;
  currency: string;
  card_brand: string;
}

export function paymentCountKeys(p: PaymentDimensions): CountKey[] {
  return countKeys('payments', p);
}

export function accountCountKeys(a: { status: string; currency: string }): CountKey[] {
  return countKeys('accounts', { status: a.status, currency: a.currency });
}

export function eventCountKeys(type: string): CountKey[] {
  return countKeys('events', { status: type });
}

function keyOf(k: CountKey): string {
  return `${k.list}\u0000${k.account_id}\u0000${k.status}\u0000${k.currency}\u0000${k.card_brand}`;
}

/** A list_counts row as written. */
export type CountRow = Omit<ListCountTable, 'shard'> & { shard: number };

/** The list_counts rows (of one shard) deltas add to: one per slice, zeros dropped, in the global order. */
export function countRows(tenantId: string, deltas: CountDelta[], shard = 0): CountRow[] {
  return mergeDeltas(deltas, keyOf).map((d) => ({
    tenant_id: tenantId,
    list: d.list,
    account_id: d.account_id,
    status: d.status,
    currency: d.currency,
    card_brand: d.card_brand,
    shard,
    n: d.delta,
  }));
}

/**
 * Applies deltas to the rows of one shard (counterShard.ts) inside the caller's transaction.
 * Rows are touched in one global order so two concurrent transactions on PostgreSQL lock them
 * in the same order and cannot deadlock.
 */
export async function adjustCounts(trx: Transaction<Database>, tenantId: string, deltas: CountDelta[], shard = 0): Promise<void> {
  const rows = countRows(tenantId, deltas, shard);
  if (rows.length === 0) return;
  // One statement: the rows every writer of a tenant locks are held for one round trip less each.
  await trx
    .insertInto('list_counts')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'list', 'account_id', 'status', 'currency', 'card_brand', 'shard']).doUpdateSet({ n: sql`list_counts.n + excluded.n` }),
    )
    .execute();
}

/** Rebuilds a tenant's counts, buckets and metadata value counts from its rows (after bulk loads), inside the caller's transaction. */
export async function recountTenant(trx: Transaction<Database>, dialect: Dialect, tenantId: string): Promise<void> {
  await rebuildBuckets(trx, dialect, tenantId);
  await rebuildValueCounts(trx, tenantId);
  await trx.deleteFrom('list_counts').where('tenant_id', '=', tenantId).execute();
  for (const list of ['payments', 'accounts', 'events'] as const) {
    for (const dims of COUNTED_SLICES[list]) {
      const value = (d: Dimension) => (dims.includes(d) ? sql.ref(DIMENSION_COLUMN[list][d] as string) : sql`''`);
      await sql`insert into list_counts (tenant_id, list, account_id, status, currency, card_brand, n)
        select tenant_id, ${sql.lit(list)}, ${sql.join(DIMENSIONS.map(value))}, count(*)
        from ${sql.table(list)} where tenant_id = ${tenantId} group by 1, 2, 3, 4, 5, 6`.execute(trx);
    }
  }
}
