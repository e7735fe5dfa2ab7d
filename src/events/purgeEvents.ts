import { inWriteTransaction } from '../db/writeTransaction.ts';
import type { Db } from '../db/database.ts';
import { adjustCounts, eventCountKeys, type CountDelta } from '../counts/listCounts.ts';

/** Rows per purge transaction: short transactions, so writers are never held up for long. */
export const PURGE_BATCH = 1000;

/** Deletes up to one batch of events created before `before` (with their deliveries), their counts with them; how many went. */
async function purgeBatch(db: Db, before: string, batch: number): Promise<number> {
  return inWriteTransaction(db, async ({ trx, shard }) => {
    const rows = await trx
      .selectFrom('events')
      .select(['id', 'tenant_id', 'type'])
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(batch)
      .forUpdate()
      .execute();
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    await trx.deleteFrom('webhook_deliveries').where('event_id', 'in', ids).execute();
    await trx.deleteFrom('events').where('id', 'in', ids).execute();
    const byTenant = new Map<string, CountDelta[]>();
    for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), ...eventCountKeys(r.type).map((k) => ({ ...k, delta: -1 }))]);
    for (const [tenantId, deltas] of [...byTenant].sort(([a], [b]) => (a < b ? -1 : 1))) await adjustCounts(trx, tenantId, deltas, shard);
    return rows.length;
  });
}

/** Purges every event older than `retentionDays`, batch by batch; returns how many. */
export async function purgeExpiredEvents(db: Db, retentionDays: number, now = Date.now(), batch = PURGE_BATCH): Promise<number> {
  const before = new Date(now - retentionDays * 86_400_000).toISOString();
  let purged = 0;
  for (;;) {
    const n = await purgeBatch(db, before, batch);
    purged += n;
    if (n < batch) return purged;
  }
}
