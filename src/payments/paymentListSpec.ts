import type { ListSpec } from '../lists/index.ts';

export const PAYMENT_STATUSES = ['pending', 'authorized', 'succeeded', 'failed', 'canceled', 'refunded', 'partially_refunded'] as const;

export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'diners', 'unionpay'] as const;

export const paymentListSpec = {
  name: 'payments',
  filters: {
    status: { kind: 'enum', values: PAYMENT_STATUSES, column: 'status' },
    currency: { kind: 'code', pattern: '[A-Z]{3}', hint: 'ISO 4217 codes such as USD,EUR', column: 'currency' },
    account_id: { kind: 'code', pattern: 'acc_[0-9A-Za-z]{26}', hint: 'account ids', column: 'account_id' },
    card_brand: { kind: 'enum', values: CARD_BRANDS, column: 'card_brand' },
    card_last4: { kind: 'code', pattern: '[0-9]{4}', hint: 'four digits', column: 'card_last4' },
    reference: { kind: 'exact', column: 'reference' },
    amount: { kind: 'integerRange', column: 'amount' },
    created_at: { kind: 'timeRange', column: 'created_at' },
    metadata: { kind: 'metadata', column: 'payment_metadata' },
  },
  sorts: { created_at: 'created_at', amount: 'amount' },
  defaultSort: 'created_at',
} as const satisfies ListSpec;
