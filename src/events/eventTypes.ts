/** Every event type: one per state change of an account or a payment. */
export const EVENT_TYPES = [
  'account.created',
  'account.updated',
  'account.closed',
  'account.deleted',
  'payment.created',
  'payment.authorized',
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'payment.refunded',
  'payment.partially_refunded',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
