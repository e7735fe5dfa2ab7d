import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { AccountSchema } from '../../src/accounts/accountSchema.ts';
import { csvColumnsOf } from '../../src/representations/csvColumns.ts';
import { fieldsetRenderer } from '../../src/representations/fieldsetRenderer.ts';
import { PaymentSchema } from '../../src/payments/paymentSchema.ts';
import { recordFor } from '../support/storedRecords.ts';

/** What a fieldset means: the record parsed, the fields kept in its own order, written by JSON.stringify. */
const parsedAndTrimmed = (keep: ReadonlySet<string>) => (row: string) => {
  const record = JSON.parse(row) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field in record) if (keep.has(field)) out[field] = record[field];
  return JSON.stringify(out);
};

describe('a fieldset renderer', () => {
  for (const [name, schema] of [
    ['payments', PaymentSchema],
    ['accounts', AccountSchema],
  ] as const) {
    it(`writes every ${name} record, trimmed to any fieldset, exactly as parsing it would`, () => {
      const fields = Object.keys((schema as TSchema & { properties: object }).properties);
      let quick = 0;
      fc.assert(
        fc.property(recordFor(csvColumnsOf(schema)), fc.subarray(fields, { minLength: 1 }), (resource, kept) => {
          const keep = new Set(kept);
          const trim = parsedAndTrimmed(keep);
          let parsed = false;
          const render = fieldsetRenderer(schema, keep, (row) => {
            parsed = true;
            return trim(row);
          });
          expect(render(resource)).toBe(trim(resource));
          if (!parsed) quick++;
        }),
        { numRuns: 3000 },
      );
      // Both ways were taken, each many times.
      expect(quick).toBeGreaterThan(300);
      expect(quick).toBeLessThan(2700);
    });
  }

  it('cuts the fields out of a stored payment without parsing it, null strings as null', () => {
    const stored = JSON.stringify({ id: 'pay_1', account_id: 'acc_1', amount: -500, reference: null, metadata: { a: 'b' } });
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string' },
        account_id: { type: 'string' },
        amount: { type: 'integer' },
        reference: { type: ['string', 'null'] },
        metadata: { type: 'object' },
      },
    } as unknown as TSchema;
    const parse = () => {
      throw new Error('parsed');
    };
    expect(fieldsetRenderer(schema, new Set(['id', 'amount', 'reference']), parse)(stored)).toBe('{"id":"pay_1","amount":-500,"reference":null}');
    // A map is not cut: it goes the long way.
    expect(() => fieldsetRenderer(schema, new Set(['metadata']), parse)(stored)).toThrow('parsed');
  });
});
