import { describe, expect, it } from 'vitest';
import { nextStatus, TRANSITIONS, type PaymentEvent, type PaymentStatus } from '../../src/payments/paymentStateMachine.ts';
import { PAYMENT_STATUSES } from '../../src/payments/paymentListSpec.ts';

/** The whole table written out independently: every (status, event) pair, allowed or not. */
const EXPECTED: Record<PaymentStatus, Partial<Record<PaymentEvent, PaymentStatus>>> = {
  pending: { approve_and_capture: 'succeeded', approve: 'authorized', decline: 'failed', cancel: 'canceled' },
  authorized: { capture: 'succeeded', cancel: 'canceled' },
  succeeded: { refund_part: 'partially_refunded', refund_rest: 'refunded' },
  partially_refunded: { refund_part: 'partially_refunded', refund_rest: 'refunded' },
  failed: {},
  canceled: {},
  refunded: {},
};
const EVENTS = Object.keys(TRANSITIONS) as PaymentEvent[];

describe('the payment state machine', () => {
  for (const from of PAYMENT_STATUSES) {
    for (const event of EVENTS) {
      const to = EXPECTED[from][event];
      it(`${from} --${event}--> ${to ?? 'refused'}`, () => {
        expect(nextStatus(from, event)).toBe(to);
      });
    }
  }

  it('has terminal states with no way out', () => {
    for (const terminal of ['failed', 'canceled', 'refunded'] as const) {
      expect(EVENTS.filter((e) => nextStatus(terminal, e))).toEqual([]);
    }
  });
});
