import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountSchema } from '../../src/accounts/accountSchema.ts';
import { csvColumnsOf } from '../../src/listing/csvColumns.ts';
import { csvLineRenderer, recordLayout } from '../../src/listing/csvLineRenderer.ts';
import { csvLine } from '../../src/listing/csvText.ts';
import { PaymentSchema } from '../../src/payments/paymentSchema.ts';
import { paymentResourceJson } from '../../src/seed/seedRows.ts';
import { recordFor } from '../support/storedRecords.ts';

const payments = csvColumnsOf(PaymentSchema);
const accounts = csvColumnsOf(AccountSchema);

describe('a CSV line renderer', () => {
  for (const [name, columns] of [
    ['payments', payments],
    ['accounts', accounts],
  ] as const) {
    it(`writes every ${name} record exactly as csvLine does, laid out as the schema says or not`, () => {
      const render = csvLineRenderer(columns);
      const layout = recordLayout(columns)!;
      let quick = 0;
      fc.assert(
        fc.property(recordFor(columns), (resource) => {
          if (layout.test(resource)) quick++;
          expect(render(resource)).toBe(csvLine(columns, resource));
        }),
        { numRuns: 3000 },
      );
      // Both ways were taken, each many times.
      expect(quick).toBeGreaterThan(300);
      expect(quick).toBeLessThan(2700);
    });
  }

  it('cuts the values of a stored payment out of its text, without parsing it', () => {
    const layout = recordLayout(payments)!;
    const stored = paymentResourceJson({
      id: 'pay_1',
      tenant_id: 'ten_1',
      account_id: 'acc_1',
      amount: -500,
      currency: 'EUR',
      status: 'succeeded',
      amount_refunded: 0,
      refund_reason: null,
      method: 'card',
      card_brand: 'visa',
      card_last4: '4242',
      card_exp_month: 4,
      card_exp_year: 2030,
      card_fingerprint: 'fp',
      description: '=cmd, and a comma',
      reference: null,
      failure_code: null,
      failure_message: null,
      metadata: '{"order":"42","note":"a, b"}',
      captured_at: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(layout.exec(stored)?.slice(1, 4)).toEqual(['pay_1', 'acc_1', '-500']);
    expect(csvLineRenderer(payments)(stored)).toBe(csvLine(payments, stored));
    expect(csvLineRenderer(payments)(stored)).toContain(`,"'=cmd, and a comma",`);
    // Texts JSON.stringify would not write: numbers that read back as other digits.
    for (const amount of ['12345678901234567890', '-0', '1.0', '1e3']) {
      const odd = stored.replace('"amount":-500', `"amount":${amount}`);
      expect(csvLineRenderer(payments)(odd)).toBe(csvLine(payments, odd));
    }
  });

  it('leaves to csvLine what no pattern describes: escapes, numbers that would not read back the same', () => {
    const layout = recordLayout(accounts)!;
    const account = { id: 'acc_1', name: 'N', email: 'e', currency: 'EUR', status: 'active', metadata: {}, created_at: 't', updated_at: 't' };
    expect(layout.test(JSON.stringify(account))).toBe(true);
    expect(layout.test(JSON.stringify({ ...account, name: 'say "hi"' }))).toBe(false);
    expect(layout.test(JSON.stringify({ ...account, metadata: { n: 1 } }))).toBe(false);
    expect(recordLayout(payments)!.test(JSON.stringify({ id: 'p' }))).toBe(false);
  });
});
