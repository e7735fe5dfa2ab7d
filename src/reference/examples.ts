import type { Account } from '../accounts/accountSchema.ts';
import type { Payment } from '../payments/paymentSchema.ts';
import type { Static } from 'typebox';
import type { EventSchema } from '../webhooks/eventSchema.ts';
import type { DeliverySchema, WebhookEndpointSchema } from '../webhooks/endpointSchemas.ts';

// Typed as the resources, so an example cannot drift from the schema without failing tsc
// (and the OpenAPI test validates each against its documented schema).
export const accountExample: Account = {
  id: 'acc_01JDQ7ZK3V6M8Y2W4T9N5R1B0C',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  currency: 'GBP',
  status: 'active',
  metadata: { crm: '42' },
  created_at: '2026-11-02T09:30:00.000Z',
  updated_at: '2026-11-02T09:30:00.000Z',
};

export const paymentExample: Payment = {
  id: 'pay_01JDQ80B8S3ZQ6V0R7X2M4K9TE',
  account_id: accountExample.id,
  amount: 2500,
  currency: 'EUR',
  status: 'succeeded',
  amount_refunded: 0,
  refund_reason: null,
  method: 'card',
  card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2031, fingerprint: 'Xq3v0kN8Zt1bW5yR7cL2aD' },
  description: 'coffee beans',
  reference: 'ord_1001',
  failure_code: null,
  failure_message: null,
  metadata: {},
  captured_at: '2026-11-02T09:31:00.000Z',
  created_at: '2026-11-02T09:31:00.000Z',
  updated_at: '2026-11-02T09:31:00.000Z',
};

export const eventExample: Static<typeof EventSchema> = {
  id: 'evt_01JDQ80B8TB2K7W3N5Q8R1V6XZ',
  type: 'payment.succeeded',
  created_at: paymentExample.updated_at,
  data: paymentExample,
};

export const webhookEndpointExample: Static<typeof WebhookEndpointSchema> = {
  id: 'whe_01JDQ7ZM2D4H6K8N0Q3S5V7X9Z',
  url: 'https://shop.example.com/webhooks/payments',
  enabled_events: ['payment.succeeded', 'payment.refunded'],
  enabled: true,
  disabled_reason: null,
  created_at: '2026-11-01T12:00:00.000Z',
  updated_at: '2026-11-01T12:00:00.000Z',
};

export const deliveryExample: Static<typeof DeliverySchema> = {
  id: 'dlv_01JDQ80B8V0C2E4G6J8L0N2Q4S',
  endpoint_id: webhookEndpointExample.id,
  event_id: eventExample.id,
  status: 'succeeded',
  attempts: 1,
  next_attempt_at: null,
  last_status_code: 204,
  last_latency_ms: 38,
  last_error: null,
  created_at: eventExample.created_at,
  updated_at: '2026-11-02T09:31:00.412Z',
};

/** A one-item page as the envelope renders it. */
export function pageExample<T>(path: string, item: T) {
  const url = (page: number) => `https://api.example.com${path}?per_page=1&page=${page}`;
  return {
    data: [item],
    links: { first: url(1), last: url(3), prev: null, next: url(2) },
    meta: {
      current_page: 1,
      from: 1,
      last_page: 3,
      links: [
        { url: null, label: '&laquo; Previous', active: false },
        { url: url(1), label: '1', active: true },
        { url: url(2), label: '2', active: false },
        { url: url(3), label: '3', active: false },
        { url: url(2), label: 'Next &raquo;', active: false },
      ],
      path: `https://api.example.com${path}`,
      per_page: 1,
      to: 1,
      total: 3,
    },
  };
}

/**
 * Request bodies that succeed as they stand in the reference page's "Try it out": test cards
 * of the sandbox processor, an expiry years ahead. A payment needs an account of yours: its
 * `account_id` is the example account's, to be replaced by an id from GET /v3/accounts (the
 * operation's description says so).
 */
const REQUEST_EXAMPLES: Record<string, unknown> = {
  'POST /v3/accounts': { name: 'Ada Lovelace', email: 'ada@example.com', currency: 'GBP', metadata: { crm: '42' } },
  'PATCH /v3/accounts/:account': { name: 'Ada King' },
  'POST /v3/payments': {
    account_id: accountExample.id,
    amount: 2500,
    currency: 'EUR',
    description: 'coffee beans',
    capture: true,
    card: { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2031, cvc: '123' },
  },
  'POST /v3/payments/:payment/capture': {},
  'POST /v3/payments/:payment/refunds': { amount: 500, reason: 'one bag returned' },
  'POST /v3/webhook_endpoints': { url: 'https://hooks.example.com/payments', enabled_events: ['payment.succeeded', 'payment.refunded'] },
  'PATCH /v3/webhook_endpoints/:endpoint': { enabled: false },
};

export function requestExampleFor(method: string, url: string): unknown {
  return REQUEST_EXAMPLES[`${method} ${url}`];
}
