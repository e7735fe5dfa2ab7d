import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountSchema } from '../../src/accounts/accountSchema.ts';
import { csvColumnsOf, type CsvColumn } from '../../src/representations/csvColumns.ts';
import { csvRecordWriter } from '../../src/exports/csvRecordWriter.ts';
import { recordLayout } from '../../src/representations/recordLayout.ts';
import { csvLine } from '../../src/exports/csvText.ts';
import { PaymentSchema } from '../../src/payments/paymentSchema.ts';
import { paymentResourceJson } from '../../src/seed/seedRows.ts';
import { recordFor } from '../support/storedRecords.ts';

const payments = csvColumnsOf(PaymentSchema);
const accounts = csvColumnsOf(AccountSchema);

/**
 * The writer's line for a stored text, or undefined when it declines: the record sits between
 * other bytes in its chunk, and the line is written after other bytes, into room that is
 * exactly what maxBytes asks for. It must never write when it declines.
 */
function written(columns: CsvColumn[], resource: string): Buffer | undefined {
  const writer = csvRecordWriter(columns)!;
  const record = Buffer.from(resource);
  const src = Buffer.concat([Buffer.from('{"x":1}\n'), record, Buffer.from('\n{"y":2}')]);
  const from = 8;
  const out = Buffer.alloc(5 + writer.maxBytes(record.length), 0xff);
  const end = writer.write(src, from, from + record.length, out, 5);
  if (end === -1) {
    expect(out.every((byte) => byte === 0xff)).toBe(true);
    return undefined;
  }
  return out.subarray(5, end);
}

describe('a CSV record writer', () => {
  for (const [name, columns] of [
    ['payments', payments],
    ['accounts', accounts],
  ] as const) {
    it(`writes the bytes csvLine gives for every ${name} record laid out as the schema says, and declines any other`, () => {
      const layout = recordLayout(columns)!;
      let quick = 0;
      fc.assert(
        fc.property(recordFor(columns), (resource) => {
          const line = written(columns, resource);
          // Read as Latin-1 or as UTF-8, a record matches the pattern alike.
          expect(line !== undefined).toBe(layout.test(resource));
          if (line === undefined) return;
          quick++;
          expect(line.equals(Buffer.from(csvLine(columns, resource)))).toBe(true);
        }),
        { numRuns: 3000 },
      );
      // Both ways were taken, each many times.
      expect(quick).toBeGreaterThan(300);
      expect(quick).toBeLessThan(2700);
    });
  }

  it('copies the values of a stored payment out of its bytes, without parsing it', () => {
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
    const line = written(payments, stored)!.toString();
    expect(line).toBe(csvLine(payments, stored));
    expect(line).toContain(`,"'=cmd, and a comma",`);
    expect(line).toContain(`,"{""order"":""42"",""note"":""a, b""}",`);
    // Texts JSON.stringify would not write: numbers that read back as other digits.
    for (const amount of ['12345678901234567890', '-0', '1.0', '1e3']) {
      const odd = stored.replace('"amount":-500', `"amount":${amount}`);
      expect(written(payments, odd)).toBeUndefined();
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
