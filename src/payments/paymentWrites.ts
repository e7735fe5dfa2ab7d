import { sql, type Selectable } from 'kysely';
import type { PaymentTable } from '../db/schema.ts';
import type { Write } from '../db/writeTransaction.ts';
import { newId } from '../core/resourceId.ts';
import { issue, notFound, Problem, validationProblem } from '../core/problem.ts';
import { conflict, shareAccount } from '../accounts/accountWrites.ts';
import type { CheckedCard } from './card/checkCard.ts';
import type { ProcessorOutcome } from './processor/cardProcessor.ts';
import { nextStatus, statusesAllowing, type PaymentEvent, type PaymentStatus } from './paymentStateMachine.ts';
import type { CreatePaymentInput } from './paymentWriteSchemas.ts';
import { recordListWrite } from '../lists/index.ts';
import { toPaymentResource, withPaymentResource } from './paymentResource.ts';
import { insertEvents, type NewEvent } from '../events/outbox.ts';

export interface NewPayment {
  input: CreatePaymentInput;
  card: CheckedCard;
  fingerprint: string;
  outcome: ProcessorOutcome;
}

/**
 * The account a payment is for: the caller's own and open, checked under a shared row lock, so
 * it cannot be closed before the payment commits (a close waits for it) while payments on the
 * same account do not wait for each other.
 */
export async function payableAccount(write: Write, tenantId: string, accountId: string) {
  const account = await shareAccount(write, tenantId, accountId);
  if (!account) throw validationProblem({ account_id: [issue('unknown_account', 'is not an account of yours')] });
  if (account.status === 'closed') throw conflict(`Account ${accountId} is closed and cannot take payments.`);
  return account;
}

/** The caller's own account `accountId` if it is open, its row locked FOR SHARE (a close waits for the write). */
export function openAccountShared({ trx }: Write, tenantId: string, accountId: string) {
  return trx.selectFrom('accounts').where('tenant_id', '=', tenantId).where('id', '=', accountId).where('status', '!=', 'closed').forShare();
}

/** A create's answer: 201, the payment, and where it lives. */
export function createdPayment(row: Selectable<PaymentTable>) {
  return { status: 201, body: { data: toPaymentResource(row) }, location: `/v3/payments/${row.id}` };
}

/**
 * Inserts the payment if its account is the caller's own and open, read under the shared row
 * lock payableAccount takes, in one statement (a round trip less on PostgreSQL). When nothing
 * went in, payableAccount says why (unknown or closed) under that lock; should the account have
 * appeared meanwhile, open (committed between the two statements), the payment goes in after all.
 */
async function insertIntoPayableAccount(write: Write, tenantId: string, row: Selectable<PaymentTable>) {
  const { trx } = write;
  const columns = Object.keys(row) as Array<keyof PaymentTable & string>;
  const inserted = await trx
    .insertInto('payments')
    .columns(columns)
    // The values' types come from the payments' columns (an INSERT … SELECT's parameters take its target's types).
    .expression(openAccountShared(write, tenantId, row.account_id).select(columns.map((column) => sql.val(row[column]).as(column))))
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return;
  await payableAccount(write, tenantId, row.account_id);
  await trx.insertInto('payments').values(row).execute();
}

/** A new payment's row, as the processor's answer left it (nothing written yet). */
export function newPaymentRow(tenantId: string, payment: NewPayment): Selectable<PaymentTable> {
  const { input, card, fingerprint, outcome } = payment;
  const event: PaymentEvent = !outcome.approved ? 'decline' : input.capture === false ? 'approve' : 'approve_and_capture';
  const status = nextStatus('pending', event)!;
  const now = new Date().toISOString();
  return withPaymentResource({
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
}

/**
 * Writes a new payment: the account checked with the payment's insert, the payment and its metadata, its events (created,
 * then the state the processor's answer moved it to) and their deliveries, and the one row that
 * says what the lists' counts gain (listChanges.ts).
 */
export async function insertPayment(write: Write, tenantId: string, payment: NewPayment) {
  const row = newPaymentRow(tenantId, payment);
  await insertIntoPayableAccount(write, tenantId, row);
  await recordPaymentCreated(write, tenantId, row, payment.input.metadata);
  return row;
}

/**
 * What a new payment's row brings with it: its metadata entries and list change (held, to go with
 * the events' statement: decision 0092), its events and their deliveries.
 */
export async function recordPaymentCreated(write: Write, tenantId: string, row: Selectable<PaymentTable>, metadata: Record<string, string> | undefined) {
  // Created, then the state the processor's answer moved it to: one event per state change.
  const events: NewEvent[] = [{ type: 'payment.created', resourceId: row.id, resource: row.resource }];
  if (row.status !== 'pending') events.push({ type: `payment.${row.status as Exclude<PaymentStatus, 'pending'>}`, resourceId: row.id, resource: row.resource });
  // A payment's metadata is set once, here: no later write changes it (migration 0016).
  const entries = { set: metadata ?? {}, record: row };
  await recordListWrite(write, tenantId, { ...paymentDimensions(row), after: paymentSide(row), events: events.map((e) => e.type) }, entries);
  await insertEvents(write, tenantId, events);
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

/** What of a payment never changes, as its list change records it. */
function paymentDimensions(row: Selectable<PaymentTable>) {
  return {
    list: 'payments' as const,
    recordId: row.id,
    accountId: row.account_id,
    currency: row.currency,
    cardBrand: row.card_brand,
    createdAt: row.created_at,
  };
}

function paymentSide(row: Selectable<PaymentTable>) {
  return { status: row.status, amount: row.amount, metadata: row.metadata };
}

/**
 * Saves a change to a payment, its event, and what it changes in the lists' counts (listChanges.ts).
 * Its metadata entries' status and amount are rewritten by the fold (countFolder.ts), not here.
 */
async function save(write: Write, row: Selectable<PaymentTable>, changes: Partial<PaymentTable>) {
  const { trx } = write;
  const updated = withPaymentResource({ ...row, ...changes, updated_at: new Date().toISOString() });
  await trx
    .updateTable('payments')
    .set({ ...changes, updated_at: updated.updated_at, resource: updated.resource })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .execute();
  const events: NewEvent[] = [{ type: `payment.${updated.status as Exclude<PaymentStatus, 'pending'>}`, resourceId: row.id, resource: updated.resource }];
  await recordListWrite(write, row.tenant_id, {
    ...paymentDimensions(row),
    before: paymentSide(row),
    after: paymentSide(updated),
    events: events.map((e) => e.type),
  });
  await insertEvents(write, row.tenant_id, events);
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
