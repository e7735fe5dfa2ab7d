import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { fetchListPage, type ListContext, type ListScope } from '../listing/fetchListPage.ts';
import type { ListQuery } from '../listing/parseListQuery.ts';
import type { PageParams } from '../pagination/pageParams.ts';

export async function findPayment(db: Kysely<Database>, tenantId: string, id: string) {
  return db.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** One page of a tenant's payments, optionally of one account, with the total that matches. */
export function listPayments(ctx: ListContext, scope: ListScope, query: ListQuery, paging: PageParams) {
  return fetchListPage(ctx, 'payments', scope, query, paging);
}
