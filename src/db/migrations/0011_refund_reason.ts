import { sql, type Kysely } from 'kysely';

/** A payment row as this migration reads it. */
type StoredPayment = Record<string, unknown> & { id: string; metadata: string | Record<string, string> };

/**
 * The payment renderer as it stood when this migration was made, not imported: a migration must
 * keep meaning what it meant. 0004's, with `refund_reason` after `amount_refunded`.
 */
function paymentResource(row: StoredPayment) {
  return {
    id: row.id,
    account_id: row.account_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    amount_refunded: row.amount_refunded,
    refund_reason: row.refund_reason,
    method: 'card',
    card: {
      brand: row.card_brand,
      last4: row.card_last4,
      exp_month: row.card_exp_month,
      exp_year: row.card_exp_year,
      fingerprint: row.card_fingerprint,
    },
    description: row.description,
    reference: row.reference,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    metadata: typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata,
    captured_at: row.captured_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * A refund's `reason` is kept and shown (`refund_reason`, the reason given with the latest refund
 * that gave one). Every stored payment is re-rendered with the new field, null: one statement
 * splicing `"refund_reason":null` in after `"amount_refunded":N,` (that text can only be the key:
 * inside a JSON string a quote is escaped), which is what `paymentResource` renders for them.
 */
export const refundReasonMigration = {
  renders: { payments: paymentResource },
  async up(db: Kysely<unknown>) {
    await sql`alter table payments add column refund_reason text`.execute(db);
    const key = sql`'"amount_refunded":' || amount_refunded || ','`;
    await sql`update payments set resource = replace(resource, ${key}, ${key} || '"refund_reason":null,')`.execute(db);
  },
};
