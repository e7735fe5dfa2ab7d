import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export async function findPayment(db: Kysely<Database>, tenantId: string, id: string) {
  return db.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}
