import { describe, expect, it } from 'vitest';
import { listQueryString } from '@payments/client';

describe('the client writes list queries as the API reads them', () => {
  it('writes filters, any-of lists, range operators, sort, per_page and page', () => {
    expect(
      listQueryString({
        filter: {
          status: ['succeeded', 'refunded'],
          amount: { gte: 1000, lt: 5000 },
          created_at: { gte: new Date('2026-01-01T00:00:00Z') },
          reference: 'a,b&c',
        },
        sort: '-amount',
        perPage: 500,
        page: 2,
      }),
    ).toBe(
      '?filter[status]=succeeded,refunded&filter[amount][gte]=1000&filter[amount][lt]=5000&filter[created_at][gte]=2026-01-01T00%3A00%3A00.000Z&filter[reference]=a%2Cb%26c&sort=-amount&per_page=500&page=2',
    );
  });

  it('leaves out what is not given', () => {
    expect(listQueryString({})).toBe('');
    expect(listQueryString({ filter: { status: undefined }, perPage: 10 })).toBe('?per_page=10');
  });
});
