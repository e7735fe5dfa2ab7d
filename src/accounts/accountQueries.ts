import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { flagged } from '../db/driverFlags.ts';

/** The tenant's account with this id. Flagged bounded: one row by its primary key, so on SQLite it is read inline, never on a reader. */
export async function findAccount(db: Kysely<Database>, tenantId: string, id: string) {
  const query = db.selectFrom('accounts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  return (await db.executeQuery(flagged(query, { bounded: true }))).rows[0];
}

/** Bounded as findAccount is. */
export async function accountExists(db: Kysely<Database>, tenantId: string, id: string): Promise<boolean> {
  const query = db.selectFrom('accounts').select('id').where('tenant_id', '=', tenantId).where('id', '=', id);
  return (await db.executeQuery(flagged(query, { bounded: true }))).rows[0] !== undefined;
}
