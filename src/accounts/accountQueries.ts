import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { fetchListPage, type ListContext } from '../listing/fetchListPage.ts';
import type { ListQuery } from '../listing/parseListQuery.ts';
import type { PageParams } from '../pagination/pageParams.ts';

export async function findAccount(db: Kysely<Database>, tenantId: string, id: string) {
  return db.selectFrom('accounts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

export async function accountExists(db: Kysely<Database>, tenantId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export function listAccounts(ctx: ListContext, tenantId: string, query: ListQuery, paging: PageParams) {
  return fetchListPage(ctx, 'accounts', { tenantId }, query, paging);
}
