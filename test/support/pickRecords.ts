import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';

/** The pick-th (modulo) of a tenant's accounts in creation order, narrowed as asked; undefined when there is none. */
export async function pickAccount(db: Kysely<Database>, tenantId: string, pick: number, which: 'any' | 'open' | 'without payments' = 'any') {
  let select = db.selectFrom('accounts').select(['id', 'currency']).where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id');
  if (which === 'open') select = select.where('status', '!=', 'closed');
  if (which === 'without payments') {
    select = select.where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('payments').select('payments.id').whereRef('payments.account_id', '=', 'accounts.id'))),
    );
  }
  const rows = await select.execute();
  return rows.length ? rows[pick % rows.length] : undefined;
}

/** The pick-th (modulo) of a tenant's payments in one of the statuses, in id order. */
export async function pickPayment(db: Kysely<Database>, tenantId: string, pick: number, statuses: string[]) {
  const rows = await db
    .selectFrom('payments')
    .select(['id', 'amount', 'amount_refunded'])
    .where('tenant_id', '=', tenantId)
    .where('status', 'in', statuses)
    .orderBy('id')
    .execute();
  return rows.length ? rows[pick % rows.length] : undefined;
}

/** A fail-fast status check of an injected request, naming what was asked. */
export function expectStatus(what: string, response: { status: number; body: unknown }, status: number) {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
}
