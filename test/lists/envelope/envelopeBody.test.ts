import { describe, expect, it } from 'vitest';
import { buildEnvelope, buildPageFrame } from '../../../src/lists/envelope/buildEnvelope.ts';
import { BodyBufferPool } from '../../../src/lists/envelope/bodyBufferPool.ts';
import { envelopeBody, EnvelopeWriter } from '../../../src/lists/envelope/envelopeBody.ts';

const frameOf = (count: number) => buildPageFrame({ origin: 'http://h', pathAndQuery: '/v3/payments?per_page=3', total: 7, page: 1, perPage: 3, count });

describe('envelopeBody', () => {
  it('writes the very bytes JSON.stringify gives for the envelope around rows stored as JSON text', () => {
    const records = [
      { id: 'a', name: 'Zoë' },
      { id: 'b', name: '東京 🚀' },
      { id: 'c', name: 'plain' },
    ];
    const rows = records.map((r) => JSON.stringify(r));
    const expected = JSON.stringify(
      buildEnvelope({ origin: 'http://h', pathAndQuery: '/v3/payments?per_page=3', total: 7, page: 1, perPage: 3, rows: records }),
    );
    expect(envelopeBody(rows, frameOf(3)).toString('utf8')).toBe(expected);
  });

  it('writes an empty data array for a page without rows', () => {
    const body = JSON.parse(envelopeBody([], frameOf(0)).toString('utf8'));
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ from: null, to: null, total: 7 });
  });
});

describe('envelopeBody with rows far from ASCII', () => {
  it('grows its buffer as it goes and still writes exactly what JSON.stringify gives', () => {
    const records = Array.from({ length: 200 }, (_, i) => ({ id: i, name: '東京🚀é'.repeat(50 + i) }));
    const rows = records.map((r) => JSON.stringify(r));
    const expected = JSON.stringify(
      buildEnvelope({ origin: 'http://h', pathAndQuery: '/v3/payments?per_page=3', total: 7, page: 1, perPage: 3, rows: records }),
    );
    expect(envelopeBody(rows, frameOf(200)).toString('utf8')).toBe(expected);
  });
});

describe('EnvelopeWriter', () => {
  const records = Array.from({ length: 3000 }, (_, i) => ({ id: `pay_${i}`, note: i % 7 === 0 ? 'Zoë 東京 🚀'.repeat(20) : 'plain'.repeat(30) }));
  const rows = records.map((r) => JSON.stringify(r));
  const frame = buildPageFrame({ origin: 'http://h', pathAndQuery: '/v3/payments?per_page=3000', total: 9000, page: 2, perPage: 3000, count: rows.length });
  const expected = JSON.stringify({ data: records, ...frame });

  it('writes rows as they come, growing past a low estimate, into exactly what JSON.stringify gives', () => {
    const writer = new EnvelopeWriter(100);
    for (const row of rows) writer.add(row);
    expect(writer.count).toBe(3000);
    expect(writer.finish(frame).toString('utf8')).toBe(expected);
  });

  it('on a pool, writes the same bytes, gives back what it outgrew at once and its last buffer on release', () => {
    const pool = new BodyBufferPool();
    const writer = new EnvelopeWriter(300 * 1024, pool);
    for (const row of rows) writer.add(row);
    expect(pool.size).toBe(1); // the first buffer, outgrown
    const body = writer.finish(frame);
    expect(body.toString('utf8')).toBe(expected);
    writer.release();
    writer.release();
    expect(pool.size).toBe(2);
    // The next writer starts on the biggest buffer given back: the one the body was a view of.
    const next = new EnvelopeWriter(400 * 1024, pool);
    next.add('{"id":"another"}');
    expect(body.toString('utf8', 0, 25)).toBe('{"data":[{"id":"another"}');
  });
});
