import { describe, expectTypeOf, it } from 'vitest';
import type { AccountListParams, PaymentFilter, PaymentListParams, ProblemBody } from '../../client/src/index.ts';
import type { CardInput } from '../../src/payments/card/checkCard.ts';
import type { Envelope } from '../../src/pagination/envelopeSchema.ts';
import type { PAYMENT_STATUSES } from '../../src/payments/paymentListSpec.ts';

// Checked by `tsc` (npm test runs it first): a type that drifts from its schema or spec fails the build.
type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

describe('types derived from the schemas and list specs', () => {
  it('gives the client the filters and sorts the server accepts, and nothing else', () => {
    expectTypeOf<NonNullable<PaymentFilter['status']>>().toEqualTypeOf<PaymentStatus | readonly PaymentStatus[]>();
    expectTypeOf<NonNullable<PaymentFilter['amount']>>().toEqualTypeOf<{ gte?: number; gt?: number; lte?: number; lt?: number }>();
    expectTypeOf<NonNullable<PaymentFilter['reference']>>().toEqualTypeOf<string>();
    expectTypeOf<keyof PaymentFilter>().toEqualTypeOf<
      'status' | 'currency' | 'account_id' | 'card_brand' | 'card_last4' | 'reference' | 'amount' | 'created_at'
    >();
    expectTypeOf<{ colour: 'red' }>().not.toExtend<PaymentFilter>();
    expectTypeOf<'-amount'>().toExtend<NonNullable<PaymentListParams['sort']>>();
    expectTypeOf<'-amount'>().not.toExtend<NonNullable<AccountListParams['sort']>>();
  });

  it('types the card, the envelope and the problem body from their schemas', () => {
    expectTypeOf<CardInput>().toEqualTypeOf<{ number: string; exp_month: number; exp_year: number; cvc: string }>();
    expectTypeOf<Envelope<string>['data']>().toEqualTypeOf<string[]>();
    expectTypeOf<Envelope<string>['links']['prev']>().toEqualTypeOf<string | null>();
    expectTypeOf<ProblemBody['errors']>().toEqualTypeOf<Record<string, string[]> | undefined>();
  });
});
