import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ListChangeTable } from '../../db/schema.ts';
import { inWriteTransaction, type Write } from '../../db/writeTransaction.ts';
import { setEntriesCarried } from './metadataEntries.ts';
import { writeCountedRows } from './countedRows.ts';
import { paymentBucketDeltas, type BucketDelta, type PaymentPosition } from './listBuckets.ts';
import { accountCountKeys, eventCountKeys, paymentCountKeys, type CountDelta } from './listCounts.ts';
import { adjustValueCounts, type ValueCountDelta } from './metadataValueCounts.ts';

type ChangeRow = Selectable<ListChangeTable>;

/** What folding a batch of changes adds to the counts: the sum of every change's deltas (merged when written). */
interface FoldDeltas {
  counts: CountDelta[];
  buckets: BucketDelta[];
  values: { payments: ValueCountDelta[]; accounts: ValueCountDelta[] };
}

const parsed = <T>(v: string | T): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

function sidesOf(c: ChangeRow) {
  const sides: Array<{ status: string; amount: number; metadata: Record<string, string>; sign: 1 | -1 }> = [];
  if (c.before_status !== null)
    sides.push({ status: c.before_status, amount: Number(c.before_amount ?? 0), metadata: parsed(c.before_metadata ?? '{}'), sign: -1 });
  if (c.after_status !== null) sides.push({ status: c.after_status, amount: Number(c.after_amount ?? 0), metadata: parsed(c.after_metadata ?? '{}'), sign: 1 });
  return sides;
}

/** Adds one change's deltas to `into`: the same the write would have added itself before migration 0033. */
export function addChangeDeltas(into: FoldDeltas, c: ChangeRow): void {
  const sides = sidesOf(c);
  for (const side of sides) {
    const keys =
      c.list === 'payments'
        ? paymentCountKeys({ account_id: c.account_id, status: side.status, currency: c.currency, card_brand: c.card_brand })
        : accountCountKeys({ status: side.status, currency: c.currency });
    for (const k of keys) into.counts.push({ ...k, delta: side.sign });
    const values = into.values[c.list as 'payments' | 'accounts'];
    for (const [key, value] of Object.entries(side.metadata)) values.push({ key, value, status: side.status, delta: side.sign });
  }
  if (c.list === 'payments') {
    const position = (sign: 1 | -1): PaymentPosition | undefined => {
      const side = sides.find((s) => s.sign === sign);
      return (
        side && {
          account_id: c.account_id,
          status: side.status,
          currency: c.currency,
          card_brand: c.card_brand,
          created_at: String(c.created_at),
          amount: side.amount,
        }
      );
    };
    into.buckets.push(...paymentBucketDeltas(position(-1), position(1)));
  }
  for (const type of parsed<string[]>(c.events)) for (const k of eventCountKeys(type)) into.counts.push({ ...k, delta: 1 });
}

/**
 * A payment's metadata entries carry its status and amount (migrations 0030, 0032); a write that
 * moves them leaves that to the fold, and reads do not trust them meanwhile (lists/sql/entriesCurrent.ts).
 */
async function moveEntries(write: Write, c: ChangeRow): Promise<void> {
  if (c.list !== 'payments' || c.before_status === null || c.after_status === null) return;
  const before = {
    tenant_id: c.tenant_id,
    id: c.record_id,
    metadata: parsed<Record<string, string>>(c.before_metadata ?? '{}'),
    status: c.before_status,
    amount: Number(c.before_amount),
  };
  await setEntriesCarried(write.trx, before, { status: c.after_status, amount: Number(c.after_amount) });
}

/** Only one fold of a tenant at a time on PostgreSQL, on any instance (another is at it: nothing to do now). */
async function foldLockTaken(write: Write, tenantId: string): Promise<boolean> {
  if (write.dialect === 'sqlite') return true;
  const { rows } = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_xact_lock(hashtextextended('list_changes fold ' || current_schema() || ' ' || ${tenantId}, 0)) as locked`.execute(write.trx);
  return rows[0].locked;
}

/**
 * Folds a tenant's oldest `batch` changes into the counts, in one transaction: they are deleted
 * and their deltas added, so each is counted exactly once (a read sees them either still here or
 * in the counts), whichever instance folds and wherever it stops. Returns how many it folded,
 * or 'busy' when another fold of the tenant is running.
 */
export async function foldTenantChanges(db: Db, tenantId: string, batch: number): Promise<number | 'busy'> {
  return inWriteTransaction(db, async (write) => {
    if (!(await foldLockTaken(write, tenantId))) return 'busy';
    const oldest = write.trx.selectFrom('list_changes').select('id').where('tenant_id', '=', tenantId).orderBy('id').limit(batch);
    const changes = await write.trx.deleteFrom('list_changes').where('tenant_id', '=', tenantId).where('id', 'in', oldest).returningAll().execute();
    if (changes.length === 0) return 0;
    changes.sort((a, b) => Number(a.id) - Number(b.id));
    const deltas: FoldDeltas = { counts: [], buckets: [], values: { payments: [], accounts: [] } };
    for (const c of changes) addChangeDeltas(deltas, c);
    for (const c of changes) await moveEntries(write, c);
    const folding = { ...write, shard: 0 };
    await writeCountedRows(folding, tenantId, deltas.counts, deltas.buckets, { list: 'payments', deltas: deltas.values.payments });
    await adjustValueCounts(folding, tenantId, 'accounts', deltas.values.accounts);
    return changes.length;
  });
}

/** Folds all of a tenant's changes committed before the call, batch by batch, waiting out another fold of it; returns how many it folded. */
export async function foldTenant(db: Db, tenantId: string, batch = 500): Promise<number> {
  let folded = 0;
  for (;;) {
    const n = await foldTenantChanges(db, tenantId, batch);
    if (n === 'busy') {
      await new Promise((resolve) => setTimeout(resolve, 10));
      continue;
    }
    folded += n;
    if (n < batch) return folded;
  }
}

/** Whether a tenant has changes waiting to be folded. */
export async function hasChanges(db: Db, tenantId: string): Promise<boolean> {
  return (await db.kysely.selectFrom('list_changes').select('id').where('tenant_id', '=', tenantId).limit(1).executeTakeFirst()) !== undefined;
}

/** How far the counts are behind the writes: changes waiting and the age of the oldest (seconds), over every tenant. */
export async function measureFoldLag(db: Db): Promise<{ changes: number; seconds: number }> {
  const tenants = await db.kysely.selectFrom('tenants').select('id').execute();
  let changes = 0;
  let oldest: number | undefined;
  for (const { id } of tenants) {
    const row = await db.kysely
      .selectFrom('list_changes')
      .select([sql<number>`count(*)`.as('n'), sql<string | null>`min(recorded_at)`.as('oldest')])
      .where('tenant_id', '=', id)
      .executeTakeFirstOrThrow();
    changes += Number(row.n);
    if (row.oldest !== null) oldest = Math.min(oldest ?? Number.POSITIVE_INFINITY, Date.parse(row.oldest));
  }
  return { changes, seconds: oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000) };
}
