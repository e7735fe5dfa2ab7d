import { sql } from 'kysely';
import { recountTenant } from '../../src/counts/listCounts.ts';
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
 * created (and the Idempotency-Keys it sent), then rebuilds the tenant's maintained counts with
 * recountTenant, in one transaction. With `always: false` nothing is written when the writer
 * left nothing behind (the check before a dataset is reused).
 */
export async function restoreDataset(url: string, tenantName: string, { always = true } = {}): Promise<Restored | undefined> {
  const db = openDatabase(url);
  try {
    const tenant = await db.kysely.selectFrom('tenants').select('id').where('name', '=', tenantName).executeTakeFirst();
    if (!tenant) return undefined;
    const mark = `${WRITER_MARK}%`;
    const deleted = await db.kysely.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('payments').where('tenant_id', '=', tenant.id).where('reference', 'like', mark).executeTakeFirst();
      const n = Number(removed.numDeletedRows);
      if (n === 0 && !always) return 0;
      await trx.deleteFrom('idempotency_keys').where('tenant_id', '=', tenant.id).where('key', 'like', mark).execute();
      await recountTenant(trx, tenant.id);
      return n;
    });
    // As after seeding: fresh statistics and visibility map once the deleted rows are gone.
    if (deleted > 0 && db.dialect === 'postgres') await sql`vacuum analyze payments, list_counts`.execute(db.kysely);
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
