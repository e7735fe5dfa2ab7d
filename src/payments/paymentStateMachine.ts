import type { PAYMENT_STATUSES } from './paymentListSpec.ts';

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type PaymentEvent = 'approve_and_capture' | 'approve' | 'decline' | 'capture' | 'cancel' | 'refund_part' | 'refund_rest';

/**
 * Every allowed transition, and only those. `approve*`/`decline` are the processor's answer
 * to a new payment; the rest are client actions. Anything not listed is a 409.
 */
export const TRANSITIONS: Readonly<Record<PaymentEvent, Partial<Record<PaymentStatus, PaymentStatus>>>> = {
  approve_and_capture: { pending: 'succeeded' },
  approve: { pending: 'authorized' },
  decline: { pending: 'failed' },
  capture: { authorized: 'succeeded' },
  cancel: { pending: 'canceled', authorized: 'canceled' },
  refund_part: { succeeded: 'partially_refunded', partially_refunded: 'partially_refunded' },
  refund_rest: { succeeded: 'refunded', partially_refunded: 'refunded' },
};

export function nextStatus(from: PaymentStatus, event: PaymentEvent): PaymentStatus | undefined {
  return TRANSITIONS[event][from];
}

/** Statuses an event may start from, for the 409 message. */
export function statusesAllowing(event: PaymentEvent): PaymentStatus[] {
  return Object.keys(TRANSITIONS[event]) as PaymentStatus[];
}
