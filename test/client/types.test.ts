import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CLIENT_TYPES, clientTypes } from '../../scripts/generate/clientTypes.ts';
import type { AccountListParams, PaymentFilter, PaymentListParams, ProblemBody } from '../../client/src/index.ts';
import type { CardInput } from '../../src/payments/card/checkCard.ts';
import type { Envelope } from '../../src/lists/envelope/envelopeSchema.ts';
import type { PAYMENT_STATUSES } from '../../src/payments/paymentListSpec.ts';

// Checked by `tsc` (npm test runs it first): a type that drifts from its schema or spec fails the build.
type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

describe('types derived from the schemas and list specs', () => {
  it('gives the client the filters and sorts the server accepts, and nothing else', () => {
    expectTypeOf<NonNullable<PaymentFilter['status']>>().toEqualTypeOf<PaymentStatus | readonly PaymentStatus[]>();
    expectTypeOf<NonNullable<PaymentFilter['amount']>>().toEqualTypeOf<{ gte?: number; gt?: number; lte?: number; lt?: number }>();
    expectTypeOf<NonNullable<PaymentFilter['reference']>>().toEqualTypeOf<string>();
    expectTypeOf<keyof PaymentFilter>().toEqualTypeOf<
      'status' | 'currency' | 'account_id' | 'card_brand' | 'card_last4' | 'reference' | 'amount' | 'created_at' | 'metadata'
    >();
    expectTypeOf<NonNullable<PaymentFilter['metadata']>>().toEqualTypeOf<Record<string, string | readonly string[]>>();
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

describe('the client package stands on its own', () => {
  it('has its API types generated from the server’s schemas and list specs, and current (`npm run generate`)', () => {
    expect(readFileSync(CLIENT_TYPES, 'utf8')).toBe(clientTypes());
  });

  it('imports nothing outside client/ and no Node module, so it installs anywhere and runs in browsers', () => {
    const dir = new URL('../../client/src/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const specifiers = [...readFileSync(new URL(file, dir), 'utf8').matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]);
      for (const specifier of specifiers) expect(specifier, `${file}`).toMatch(/^\.\/[A-Za-z]+\.ts$/);
    }
  });
});
