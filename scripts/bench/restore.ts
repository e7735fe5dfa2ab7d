import { sql } from 'kysely';
import { foldTenant } from '../../src/lists/counters/foldChanges.ts';
import { adjustCounts, paymentCountKeys } from '../../src/lists/counters/listCounts.ts';
import { adjustBuckets, paymentBucketDeltas } from '../../src/lists/counters/listBuckets.ts';
import { openDatabase } from '../../src/db/database.ts';
import { WRITER_MARK } from './writer.ts';

export interface Restored {
  /** Payments the writer had created (found by their reference), now deleted. */
  deleted: number;
  /** The tenant's payments afterwards, counted with count(*). */
  payments: number;
}

/**
 * Takes a dataset back to what the seed made: deletes, through SQL, every payment the writer
 * created (and the Idempotency-Keys it sent), and takes each one out of the maintained counts and
 * bucket counts as a write would, in one transaction. With `always: false` nothing is written when the writer
 * left nothing behind (the check before a dataset is reused).
 */
export async function restoreDataset(url: string, tenantName: string, { always = true } = {}): Promise<Restored | undefined> {
  const db = openDatabase(url);
  try {
    const tenant = await db.kysely.selectFrom('tenants').select('id').where('name', '=', tenantName).executeTakeFirst();
    if (!tenant) return undefined;
    const mark = `${WRITER_MARK}%`;
    // The counts must hold every write before the writer's rows are taken out of them (lists/counters/foldChanges.ts).
    await foldTenant(db, tenant.id);
    const deleted = await db.kysely.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom('payments').select(['id', 'account_id', 'status', 'currency', 'card_brand', 'created_at', 'amount']).where('tenant_id', '=', tenant.id).where('reference', 'like', mark).execute();
      if (rows.length === 0 && !always) return 0;
      for (let i = 0; i < rows.length; i += 1000) {
        await trx.deleteFrom('payments').where('id', 'in', rows.slice(i, i + 1000).map((r) => r.id)).execute();
      }
      await adjustCounts(trx, tenant.id, rows.flatMap((r) => paymentCountKeys(r).map((k) => ({ ...k, delta: -1 }))));
      await adjustBuckets(trx, tenant.id, rows.flatMap((r) => paymentBucketDeltas(r, undefined)));
      await trx.deleteFrom('idempotency_keys').where('tenant_id', '=', tenant.id).where('key', 'like', mark).execute();
      return rows.length;
    });
    // As after seeding: fresh statistics and visibility map once the deleted rows are gone.
    if (deleted > 0 && db.dialect === 'postgres') await sql`vacuum analyze payments, list_counts, list_buckets`.execute(db.kysely);
    const count = await db.kysely
      .selectFrom('payments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenant.id)
      .executeTakeFirstOrThrow();
    return { deleted, payments: Number(count.n) };
  } finally {
    await db.close();
  }
}
