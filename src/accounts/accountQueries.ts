import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export async function findAccount(db: Kysely<Database>, tenantId: string, id: string) {
  return db.selectFrom('accounts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

export async function accountExists(db: Kysely<Database>, tenantId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
