import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Dialect, ListCountTable } from '../db/schema.ts';
import { rebuildBuckets } from './listBuckets.ts';
import { mergeDeltas } from './mergeDeltas.ts';
import { COUNTED_SLICES, SLICE_COLUMN, type CountedList } from './countedSlices.ts';

export type { CountedList } from './countedSlices.ts';

/** One counted slice; '' means "all" for account and status. */
export interface CountKey {
  list: CountedList;
  accountId: string;
  status: string;
}

export interface CountDelta extends CountKey {
  delta: number;
}

/** The slices one record is counted in (countedSlices.ts). */
function countKeys(list: CountedList, accountId: string, status: string): CountKey[] {
  return COUNTED_SLICES[list].map((s) => ({ list, accountId: s.byAccount ? accountId : '', status: s.byStatus ? status : '' }));
}

export function paymentCountKeys(accountId: string, status: string): CountKey[] {
  return countKeys('payments', accountId, status);
}

export function accountCountKeys(status: string): CountKey[] {
  return countKeys('accounts', '', status);
}

export function eventCountKeys(type: string): CountKey[] {
  return countKeys('events', '', type);
}

/** Deltas for moving one record between statuses (slices that do not change cancel out). */
export function statusChangeDeltas(keysFor: (status: string) => CountKey[], from: string, to: string): CountDelta[] {
  if (from === to) return [];
  return [...keysFor(from).map((k) => ({ ...k, delta: -1 })), ...keysFor(to).map((k) => ({ ...k, delta: 1 }))];
}

function keyOf(k: CountKey): string {
  return `${k.list}\u0000${k.accountId}\u0000${k.status}`;
}

/** A list_counts row as written. */
export type CountRow = Omit<ListCountTable, 'shard'> & { shard: number };

/** The list_counts rows (of one shard) deltas add to: one per slice, zeros dropped, in the global order. */
export function countRows(tenantId: string, deltas: CountDelta[], shard = 0): CountRow[] {
  return mergeDeltas(deltas, keyOf).map((d) => ({ tenant_id: tenantId, list: d.list, account_id: d.accountId, status: d.status, shard, n: d.delta }));
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
    .onConflict((oc) => oc.columns(['tenant_id', 'list', 'account_id', 'status', 'shard']).doUpdateSet({ n: sql`list_counts.n + excluded.n` }))
    .execute();
}

/** The exact total of a slice: the sum of its rows (several statuses add up). */
export async function countedTotal(db: Kysely<Database>, tenantId: string, list: CountedList, accountId: string, statuses: string[]): Promise<number> {
  const row = await db
    .selectFrom('list_counts')
    .select(sql<number>`coalesce(sum(n), 0)`.as('total'))
    .where('tenant_id', '=', tenantId)
    .where('list', '=', list)
    .where('account_id', '=', accountId)
    .where('status', 'in', statuses.length ? statuses : [''])
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** Rebuilds a tenant's counts and buckets from its rows (after bulk loads), inside the caller's transaction. */
export async function recountTenant(trx: Transaction<Database>, dialect: Dialect, tenantId: string): Promise<void> {
  await rebuildBuckets(trx, dialect, tenantId);
  await trx.deleteFrom('list_counts').where('tenant_id', '=', tenantId).execute();
  for (const list of ['payments', 'accounts', 'events'] as const) {
    for (const { byAccount, byStatus } of COUNTED_SLICES[list]) {
      await sql`insert into list_counts (tenant_id, list, account_id, status, n)
        select tenant_id, ${sql.lit(list)}, ${byAccount ? sql`account_id` : sql`''`}, ${byStatus ? sql.ref(SLICE_COLUMN[list]) : sql`''`}, count(*)
        from ${sql.table(list)} where tenant_id = ${tenantId} group by 1, 2, 3, 4`.execute(trx);
    }
  }
}
