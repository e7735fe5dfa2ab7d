import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { applyConditions, applyOrder } from '../listing/applyListQuery.ts';
import type { ListQuery } from '../listing/parseListQuery.ts';
import type { PageParams } from '../pagination/pageParams.ts';

export async function findAccount(db: Kysely<Database>, tenantId: string, id: string) {
  return db.selectFrom('accounts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

export async function accountExists(db: Kysely<Database>, tenantId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export async function listAccounts(db: Kysely<Database>, tenantId: string, query: ListQuery, paging: PageParams) {
  const scoped = applyConditions(db.selectFrom('accounts').where('tenant_id', '=', tenantId), query);
  const [counted, rows] = await Promise.all([
    scoped.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    applyOrder(scoped.selectAll(), query).limit(paging.perPage).offset(paging.offset).execute(),
  ]);
  return { total: Number(counted.total), rows };
}
