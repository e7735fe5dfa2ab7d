import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvColumnsOf } from '../../src/representations/csvColumns.ts';
import { CSV_CHUNK_BYTES, csvRowsOfNdjson } from '../../src/exports/csvRowsOfNdjson.ts';
import { csvLine } from '../../src/exports/csvText.ts';
import { PaymentSchema } from '../../src/payments/paymentSchema.ts';

const columns = csvColumnsOf(PaymentSchema);

/** Texts that take one to four bytes a character, quotes, commas and escaped line breaks. */
const text = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '"', ',', '\n', '\r', '=', '\u2028') });
const record = fc.record({
  id: text,
  amount: fc.integer({ min: -1e6, max: 1e6 }),
  card: fc.record({ brand: text, last4: text }),
  metadata: fc.dictionary(text, text),
});

async function* inChunks(bytes: Buffer, cuts: number[]) {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
}

async function rowsOf(chunks: AsyncIterable<Buffer>) {
  const sent = { count: 0 };
  let csv = '';
  for await (const text of csvRowsOfNdjson(chunks, columns, sent)) csv += text;
  return { csv, count: sent.count };
}

describe('CSV rows of NDJSON bytes', () => {
  it('are the records’ CSV lines in order, wherever the chunks cut a record or a character', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 12 }), async (records, cutsAt) => {
        const bytes = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
        const cuts = [...new Set(cutsAt.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
        const { csv, count } = await rowsOf(inChunks(bytes, cuts));
        expect(csv).toBe(records.map((r) => csvLine(columns, JSON.stringify(r))).join(''));
        expect(count).toBe(records.length);
      }),
    );
  });

  it('are handed on as whole lines, in pieces of at most CSV_CHUNK_BYTES unless one line is longer', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ({
      id: `pay_${i}`,
      amount: i,
      card: { brand: '€😀é'.repeat(10), last4: '4242' },
      metadata: { k: 'v,é' },
    }));
    const long = { id: '=x'.repeat(100_000), amount: 1, card: { brand: 'é'.repeat(80_000), last4: '😀' }, metadata: {} };
    const records = [...many, long, { id: 'after', amount: 2, card: { brand: 'b', last4: '1' }, metadata: {} }];
    const bytes = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const sent = { count: 0 };
    const pieces: Buffer[] = [];
    for await (const piece of csvRowsOfNdjson(inChunks(bytes, [1000, 70_000, 150_000, 1_500_000]), columns, sent)) pieces.push(piece);
    expect(Buffer.concat(pieces).toString()).toBe(records.map((r) => csvLine(columns, JSON.stringify(r))).join(''));
    expect(sent.count).toBe(records.length);
    for (const piece of pieces) expect(piece.at(-1)).toBe(10);
    expect(pieces.filter((piece) => piece.length > CSV_CHUNK_BYTES)).toHaveLength(1);
    // Full but for the one cut short by the long line, the long line's own and the last.
    for (const piece of pieces.slice(0, -3)) expect(piece.length).toBeGreaterThan(CSV_CHUNK_BYTES - 4 * 1024);
    expect(pieces.length).toBeGreaterThan(4);
  });

  it('refuse bytes that end inside a record rather than drop it', async () => {
    await expect(rowsOf(inChunks(Buffer.from('{"id":"a"}\n{"id":"b"}'), [5]))).rejects.toThrow(/without a newline/);
  });
});
