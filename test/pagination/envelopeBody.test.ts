import { describe, expect, it } from 'vitest';
import { buildEnvelope, buildPageFrame } from '../../src/pagination/buildEnvelope.ts';
import { envelopeBody } from '../../src/pagination/envelopeBody.ts';

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
