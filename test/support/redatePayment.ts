import type { Selectable, Transaction } from 'kysely';
import type { Database, PaymentTable } from '../../src/db/schema.ts';
import { adjustBuckets, paymentBucketDeltas } from '../../src/lists/counters/listBuckets.ts';
import { withPaymentResource } from '../../src/payments/paymentResource.ts';

/**
 * Moves a payment to another created_at inside `trx`, as if its writes had taken that timestamp:
 * the row re-rendered, its list changes not folded yet carrying the new instant, and what the
 * fold already added to the buckets (its state before the first change still waiting) moved.
 * The waiting changes are locked first, so a fold in flight either ends before or folds them moved.
 */
export async function redatePayment(trx: Transaction<Database>, row: Selectable<PaymentTable>, createdAt: string): Promise<void> {
  const { resource } = withPaymentResource({ ...row, created_at: createdAt });
  const waiting = await trx
    .selectFrom('list_changes')
    .selectAll()
    .where('tenant_id', '=', row.tenant_id)
    .where('record_id', '=', row.id)
    .orderBy('id')
    .forUpdate()
    .execute();
  await trx.updateTable('payments').set({ created_at: createdAt, resource }).where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute();
  await trx.updateTable('list_changes').set({ created_at: createdAt }).where('tenant_id', '=', row.tenant_id).where('record_id', '=', row.id).execute();
  const first = waiting[0];
  const folded =
    first === undefined ? row : first.before_status === null ? undefined : { ...row, status: first.before_status, amount: Number(first.before_amount) };
  if (folded) await adjustBuckets(trx, row.tenant_id, paymentBucketDeltas(folded, { ...folded, created_at: createdAt }));
}
