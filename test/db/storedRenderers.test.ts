import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedRenderers } from '../../src/db/migrate.ts';
import { toAccountResource } from '../../src/accounts/accountResource.ts';
import { toPaymentResource } from '../../src/payments/paymentResource.ts';

const text = fc.string({ maxLength: 20 });
const nullableText = fc.option(text, { nil: null });
const metadata = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), text, { maxKeys: 3 });
/** Metadata arrives as JSON text on SQLite and parsed on PostgreSQL. */
const storedMetadata = metadata.chain((m) => fc.constantFrom<string | Record<string, string>>(JSON.stringify(m), m));
const instant = fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString());

const paymentRow = fc.record({
  id: text,
  tenant_id: text,
  account_id: text,
  amount: fc.integer(),
  currency: text,
  status: text,
  amount_refunded: fc.integer(),
  refund_reason: nullableText,
  method: text,
  card_brand: text,
  card_last4: text,
  card_exp_month: fc.integer(),
  card_exp_year: fc.integer(),
  card_fingerprint: text,
  description: nullableText,
  reference: nullableText,
  failure_code: nullableText,
  failure_message: nullableText,
  metadata: storedMetadata,
  captured_at: fc.option(instant, { nil: null }),
  created_at: instant,
  updated_at: instant,
});
const accountRow = fc.record({
  id: text,
  tenant_id: text,
  name: text,
  email: text,
  currency: text,
  status: text,
  metadata: storedMetadata,
  created_at: instant,
  updated_at: instant,
});

/**
 * Every stored `resource` was rendered by the latest re-rendering migration or by a write since;
 * a list shows the stored text while GET-one and writes render anew. So the live renderers must
 * give exactly the stored text: a renderer change needs a migration that re-renders the rows.
 */
describe('the stored representation of a record', () => {
  it('is what the live payment renderer writes, byte for byte', () => {
    fc.assert(
      fc.property(paymentRow, (row) => {
        expect(JSON.stringify(toPaymentResource(row))).toBe(JSON.stringify(storedRenderers.payments(row)));
      }),
    );
  });

  it('is what the live account renderer writes, byte for byte', () => {
    fc.assert(
      fc.property(accountRow, (row) => {
        expect(JSON.stringify(toAccountResource(row))).toBe(JSON.stringify(storedRenderers.accounts(row)));
      }),
    );
  });
});
