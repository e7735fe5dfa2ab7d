import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../support/testApp.ts';

describe('a list request with several mistakes', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('mistakes')).key;
  });
  afterAll(() => t.close());

  it('gets every one in one 422: those the schema finds and those only reading the query finds', async () => {
    const { status, body } = await t.get(
      '/v3/payments?per_page=0&filter[colour]=red&sort=amount,amount&filter[created_at][gte]=2026-02-30&fields[payments]=nope',
      key,
    );
    expect(status).toBe(422);
    expect(body.codes).toEqual({
      per_page: ['invalid_per_page'],
      'filter[colour]': ['unknown_filter'],
      sort: ['repeated_sort'],
      'filter[created_at][gte]': ['invalid_filter_value'],
      'fields[payments]': ['unknown_resource_field'],
    });
  });

  it('names an unknown sort field beside a page past what can be counted', async () => {
    const { status, body } = await t.get('/v3/accounts?sort=colour&page=9007199254740&per_page=5000', key);
    expect(status).toBe(422);
    expect(body.codes).toEqual({ sort: ['unknown_sort'], page: ['out_of_range'] });
  });

  it('lists only what reading finds when the schema finds nothing', async () => {
    const { status, body } = await t.get('/v3/payments?sort=amount,-amount&filter[created_at][lt]=2026-02-30', key);
    expect(status).toBe(422);
    expect(body.codes).toEqual({ 'filter[created_at][lt]': ['invalid_filter_value'], sort: ['repeated_sort'] });
  });

  it('does the same for an export: paging, an unknown filter and a repeated sort together', async () => {
    const { status, body } = await t.get('/v3/payments/export?page=2&filter[colour]=x&sort=amount,amount', key);
    expect(status).toBe(422);
    expect(body.codes).toEqual({ 'filter[colour]': ['unknown_filter'], sort: ['repeated_sort'], page: ['paging_not_accepted'] });
  });
});
