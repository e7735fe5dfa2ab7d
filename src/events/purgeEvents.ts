import { inWriteTransaction } from '../db/writeTransaction.ts';
import type { Db } from '../db/database.ts';
import { everyTenantId } from '../db/everyTenantId.ts';
import { adjustCounts, eventCountKeys, type CountDelta } from '../lists/index.ts';

/** Rows per purge transaction: short transactions, so writers are never held up for long. */
export const PURGE_BATCH = 1000;

/** Deletes up to one batch of the tenant's events created before `before` (with their deliveries), their counts with them; how many went. */
async function purgeBatch(db: Db, tenantId: string, before: string, batch: number): Promise<number> {
  return inWriteTransaction(db, async ({ trx, shard }) => {
    const rows = await trx
      .selectFrom('events')
      .select(['id', 'type'])
      .where('tenant_id', '=', tenantId)
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(batch)
      .forUpdate()
      .execute();
    if (rows.length === 0) return 0;
    const ids = rows.map((r) => r.id);
    await trx.deleteFrom('webhook_deliveries').where('tenant_id', '=', tenantId).where('event_id', 'in', ids).execute();
    await trx.deleteFrom('events').where('tenant_id', '=', tenantId).where('id', 'in', ids).execute();
    await adjustCounts(
      trx,
      tenantId,
      rows.flatMap((r) => eventCountKeys(r.type).map((k): CountDelta => ({ ...k, delta: -1 }))),
      shard,
    );
    return rows.length;
  });
}

/** Purges every event older than `retentionDays`, tenant by tenant (each statement names one: index events_tenant_created), batch by batch; returns how many. */
export async function purgeExpiredEvents(db: Db, retentionDays: number, now = Date.now(), batch = PURGE_BATCH): Promise<number> {
  const before = new Date(now - retentionDays * 86_400_000).toISOString();
  let purged = 0;
  for await (const tenantId of everyTenantId(db.kysely)) {
    for (;;) {
      const n = await purgeBatch(db, tenantId, before, batch);
      purged += n;
      if (n < batch) break;
    }
  }
  return purged;
}
