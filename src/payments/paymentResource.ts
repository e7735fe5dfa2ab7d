import type { Selectable } from 'kysely';
import type { PaymentTable } from '../db/schema.ts';
import { readJsonObject } from '../db/jsonColumn.ts';
import type { Payment } from './paymentSchema.ts';

export function toPaymentResource(row: Omit<Selectable<PaymentTable>, 'resource'>): Payment {
  return {
    id: row.id,
    account_id: row.account_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status as Payment['status'],
    amount_refunded: row.amount_refunded,
    refund_reason: row.refund_reason,
    method: 'card',
    card: {
      brand: row.card_brand as Payment['card']['brand'],
      last4: row.card_last4,
      exp_month: row.card_exp_month,
      exp_year: row.card_exp_year,
      fingerprint: row.card_fingerprint,
    },
    description: row.description,
    reference: row.reference,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    metadata: readJsonObject(row.metadata),
    captured_at: row.captured_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A payment row with its stored representation filled in: what every write saves. */
export function withPaymentResource<T extends Omit<Selectable<PaymentTable>, 'resource'>>(row: T): T & { resource: string } {
  return { ...row, resource: JSON.stringify(toPaymentResource(row)) };
}
