import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { applyConditions, applyOrder } from '../listing/applyListQuery.ts';
import type { ListQuery } from '../listing/parseListQuery.ts';
import type { PageParams } from '../pagination/pageParams.ts';

export async function findPayment(db: Kysely<Database>, tenantId: string, id: string) {
  return db.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** One page of a tenant's payments, optionally of one account, with the total that matches. */
export async function listPayments(
  db: Kysely<Database>,
  scope: { tenantId: string; accountId?: string },
  query: ListQuery,
  paging: PageParams,
) {
  let base = db.selectFrom('payments').where('tenant_id', '=', scope.tenantId);
  if (scope.accountId !== undefined) base = base.where('account_id', '=', scope.accountId);
  const scoped = applyConditions(base, query);
  const [counted, rows] = await Promise.all([
    scoped.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    applyOrder(scoped.selectAll(), query).limit(paging.perPage).offset(paging.offset).execute(),
  ]);
  return { total: Number(counted.total), rows };
}
