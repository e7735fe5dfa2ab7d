import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { toPaymentResource } from '../../payments/paymentResource.ts';
import { toAccountResource } from '../../accounts/accountResource.ts';

const BATCH = 2000;

/**
 * Each record keeps its API representation as JSON text, rendered by the one renderer the
 * writes use, so a 5000-row page is 5000 strings spliced into the envelope (docs/performance.md).
 */
export const resourceJsonMigration = {
  async up(untyped: Kysely<unknown>) {
    const db = untyped as unknown as Kysely<Database>;
    await sql`alter table payments add column resource text`.execute(db);
    await sql`alter table accounts add column resource text`.execute(db);
    for (const table of ['payments', 'accounts'] as const) {
      for (let after = ''; ; ) {
        const rows = await db.selectFrom(table as 'payments').selectAll().where('id', '>', after).orderBy('id').limit(BATCH).execute();
        if (rows.length === 0) break;
        for (const row of rows) {
          const resource = table === 'payments' ? toPaymentResource(row) : toAccountResource(row as never);
          await db.updateTable(table as 'payments').set({ resource: JSON.stringify(resource) }).where('id', '=', row.id).execute();
        }
        after = rows[rows.length - 1].id;
      }
    }
  },
};
