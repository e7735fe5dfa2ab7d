import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../src/exports/csvText.ts';
import { csvColumnsOf } from '../../src/representations/csvColumns.ts';
import { PaymentSchema } from '../../src/payments/paymentSchema.ts';

/** RFC 4180's reading of one cell. */
function readCell(cell: string): string {
  return cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
}

describe('CSV cells', () => {
  it('read back as the text they hold, quoted exactly when they contain a quote, comma or line break', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const cell = csvCell(text);
        const formula = /^[=+\-@\t\r]/.test(text);
        expect(readCell(cell)).toBe(formula ? `'${text}` : text);
        expect(cell.startsWith('"')).toBe(formula || /[",\r\n]/.test(text));
      }),
    );
  });

  it('defuse what a spreadsheet would run as a formula, but keep numbers as numbers', () => {
    expect(csvCell('=1+2')).toBe(`"'=1+2"`);
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvCell('\tx')).toBe(`"'\tx"`);
    expect(csvCell(-500)).toBe('-500');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ a: 'b' })).toBe('"{""a"":""b""}"');
  });

  it('flatten a payment: nested card fields as card.*, metadata as JSON text, in the schema’s order', () => {
    const columns = csvColumnsOf(PaymentSchema);
    expect(columns.map((c) => c.name)).toContain('card.last4');
    expect(columns.map((c) => c.name)).not.toContain('card');
    const line = csvLine(columns, JSON.stringify({ id: 'pay_1', amount: 5, card: { brand: 'visa', last4: '4242' }, metadata: { k: 'v' } }));
    const cells =
      line
        .replace(/\r\n$/, '')
        .match(/("([^"]|"")*"|[^,]*)(,|$)/g)
        ?.map((c) => c.replace(/,$/, '')) ?? [];
    const byName = Object.fromEntries(columns.map((c, i) => [c.name, readCell(cells[i])]));
    expect(byName).toMatchObject({ id: 'pay_1', amount: '5', 'card.brand': 'visa', 'card.last4': '4242', metadata: '{"k":"v"}', description: '' });
  });

  it('render any record as its cells, each looked up by its path and written by csvCell, comma-separated', () => {
    const columns = csvColumnsOf(PaymentSchema);
    const value = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(fc.string(), fc.string()));
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('id', 'amount', 'status', 'description', 'metadata', 'card', 'zzz'), value),
        fc.record({ brand: value, last4: value }),
        (record, card) => {
          const resource = JSON.stringify({ ...record, card: 'card' in record && record.card === null ? null : card });
          const parsed = JSON.parse(resource);
          const expected = columns
            .map((c) => csvCell(c.path.reduce<unknown>((v, key) => (v as Record<string, unknown> | null | undefined)?.[key], parsed)))
            .join(',');
          expect(csvLine(columns, resource)).toBe(`${expected}\r\n`);
        },
      ),
    );
  });
});
