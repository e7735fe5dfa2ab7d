import type { Selectable } from 'kysely';
import type { PaymentTable } from '../db/schema.ts';
import type { Write } from '../db/writeTransaction.ts';
import { newId } from '../core/resourceId.ts';
import { issue, notFound, Problem, validationProblem } from '../core/problem.ts';
import { conflict, lockAccount } from '../accounts/accountWrites.ts';
import type { CheckedCard } from './card/checkCard.ts';
import type { ProcessorOutcome } from './processor/cardProcessor.ts';
import { nextStatus, statusesAllowing, type PaymentEvent, type PaymentStatus } from './paymentStateMachine.ts';
import type { CreatePaymentInput } from './paymentWriteSchemas.ts';
import { adjustCounts, paymentCountKeys, statusChangeDeltas } from '../counts/listCounts.ts';
import { adjustBuckets, paymentBucketDeltas } from '../counts/listBuckets.ts';
import { withPaymentResource } from './paymentResource.ts';
import { recordEvent } from '../events/outbox.ts';
import { insertMetadataEntries } from '../listing/metadataEntries.ts';

export interface NewPayment {
  input: CreatePaymentInput;
  card: CheckedCard;
  fingerprint: string;
  outcome: ProcessorOutcome;
}

/** The account a payment is for: the caller's own and open, checked under a row lock. */
export async function payableAccount(write: Write, tenantId: string, accountId: string) {
  const account = await lockAccount(write, tenantId, accountId);
  if (!account) throw validationProblem({ account_id: [issue('unknown_account', 'is not an account of yours')] });
  if (account.status === 'closed') throw conflict(`Account ${accountId} is closed and cannot take payments.`);
  return account;
}

export async function insertPayment(write: Write, tenantId: string, payment: NewPayment) {
  const { trx, shard } = write;
  const { input, card, fingerprint, outcome } = payment;
  await payableAccount(write, tenantId, input.account_id);
  const event: PaymentEvent = !outcome.approved ? 'decline' : input.capture === false ? 'approve' : 'approve_and_capture';
  const status = nextStatus('pending', event)!;
  const now = new Date().toISOString();
  const row: Selectable<PaymentTable> = withPaymentResource({
    id: newId('pay'),
    tenant_id: tenantId,
    account_id: input.account_id,
    amount: input.amount,
    currency: input.currency,
    status,
    amount_refunded: 0,
    refund_reason: null,
    method: 'card',
    card_brand: card.brand,
    card_last4: card.last4,
    card_exp_month: card.expMonth,
    card_exp_year: card.expYear,
    card_fingerprint: fingerprint,
    description: input.description ?? null,
    reference: input.reference ?? null,
    failure_code: outcome.approved ? null : outcome.code,
    failure_message: outcome.approved ? null : outcome.message,
    metadata: JSON.stringify(input.metadata ?? {}),
    captured_at: status === 'succeeded' ? now : null,
    created_at: now,
    updated_at: now,
  });
  await trx.insertInto('payments').values(row).execute();
  // A payment's metadata is set once, here: no later write changes it (migration 0016).
  await insertMetadataEntries(trx, 'payments', tenantId, row.id, input.metadata ?? {});
  await adjustCounts(
    trx,
    tenantId,
    paymentCountKeys(row).map((k) => ({ ...k, delta: 1 })),
    shard,
  );
  await adjustBuckets(trx, tenantId, paymentBucketDeltas(undefined, row), shard);
  // Created, then the state the processor's answer moved it to: one event per state change.
  await recordEvent(write, tenantId, 'payment.created', row.id, row.resource);
  if (status !== 'pending') await recordEvent(write, tenantId, `payment.${status}`, row.id, row.resource);
  return row;
}

async function lockPayment({ trx }: Write, tenantId: string, id: string) {
  const row = await trx.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forUpdate().executeTakeFirst();
  if (!row) throw notFound(`No payment ${id}.`);
  return row;
}

function illegal(row: { id: string; status: string }, action: string, event: PaymentEvent): Problem {
  return new Problem('invalid-transition', {
    detail: `Payment ${row.id} is ${row.status}; only a payment that is ${statusesAllowing(event).join(' or ')} can be ${action}.`,
  });
}

async function save(write: Write, row: Selectable<PaymentTable>, changes: Partial<PaymentTable>) {
  const { trx, shard } = write;
  const updated = withPaymentResource({ ...row, ...changes, updated_at: new Date().toISOString() });
  await trx
    .updateTable('payments')
    .set({ ...changes, updated_at: updated.updated_at, resource: updated.resource })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .execute();
  if (changes.status !== undefined) {
    await adjustCounts(
      trx,
      row.tenant_id,
      statusChangeDeltas((s) => paymentCountKeys({ ...row, status: s }), row.status, changes.status),
      shard,
    );
  }
  // A status change moves the row between status slices; a smaller capture moves it in amount order.
  await adjustBuckets(trx, row.tenant_id, paymentBucketDeltas(row, updated), shard);
  await recordEvent(write, row.tenant_id, `payment.${updated.status as Exclude<PaymentStatus, 'pending'>}`, row.id, updated.resource);
  return updated;
}

export async function capturePayment(write: Write, tenantId: string, id: string, amount?: number) {
  const row = await lockPayment(write, tenantId, id);
  const status = nextStatus(row.status as PaymentStatus, 'capture');
  if (!status) throw illegal(row, 'captured', 'capture');
  if (amount !== undefined && amount > row.amount) {
    throw validationProblem({ amount: [issue('exceeds_authorized', `must not exceed the authorized ${row.amount}`)] });
  }
  const now = new Date().toISOString();
  return save(write, row, { status, amount: amount ?? row.amount, captured_at: now });
}

export async function cancelPayment(write: Write, tenantId: string, id: string) {
  const row = await lockPayment(write, tenantId, id);
  const status = nextStatus(row.status as PaymentStatus, 'cancel');
  if (!status) throw illegal(row, 'canceled', 'cancel');
  return save(write, row, { status });
}

export async function refundPayment(write: Write, tenantId: string, id: string, amount?: number, reason?: string) {
  const row = await lockPayment(write, tenantId, id);
  if (!nextStatus(row.status as PaymentStatus, 'refund_part')) throw illegal(row, 'refunded', 'refund_part');
  const left = row.amount - row.amount_refunded;
  const refund = amount ?? left;
  if (refund > left) throw validationProblem({ amount: [issue('exceeds_refundable', `must not exceed the ${left} left to refund`)] });
  const refunded = row.amount_refunded + refund;
  const status = nextStatus(row.status as PaymentStatus, refunded === row.amount ? 'refund_rest' : 'refund_part')!;
  return save(write, row, { status, amount_refunded: refunded, ...(reason !== undefined ? { refund_reason: reason } : {}) });
}
