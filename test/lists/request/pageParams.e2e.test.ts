import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { seed } from '../../support/seedHelpers.ts';

describe('paging values are validated exactly (API.md §1)', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('paging')).key;
    await seed(t.database.db, 'paging', 2, 25);
  });
  afterAll(() => t.close());

  const bad: Array<[string, string]> = [
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['page=abc', 'page'],
    ['page=', 'page'],
    ['page=1e3', 'page'],
    ['page=0x10', 'page'],
    ['page=+2', 'page'],
    ['page=%201', 'page'],
    ['page=1&page=2', 'page'],
    ['page[]=1', 'page'],
    ['page[x]=1', 'page'],
    ['page=99999999999999999999', 'page'],
    ['page=9007199254740991', 'page'],
    ['per_page=0', 'per_page'],
    ['per_page=5001', 'per_page'],
    ['per_page=-5', 'per_page'],
    ['per_page=10.0', 'per_page'],
    ['per_page=', 'per_page'],
    ['per_page=ten', 'per_page'],
    ['per_page=05', 'per_page'],
    ['per_page=1&per_page=2', 'per_page'],
  ];
  for (const list of ['/v3/payments', '/v3/accounts']) {
    it.each(bad)(`${list}?%s is a 422 problem naming %s`, async (query, field) => {
      const response = await t.app.inject({ url: `${list}?${query}`, headers: { authorization: `Bearer ${key}` } });
      expect(response.statusCode).toBe(422);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = response.json();
      expect(problem).toMatchObject({ status: 422, title: expect.any(String), detail: expect.any(String) });
      expect(Object.keys(problem.errors)).toEqual([field]);
      expect(problem.errors[field][0]).toEqual(expect.any(String));
    });
  }

  it.each([
    ['page=01', { page: ['must be written without leading zeros: 1'] }, { page: ['leading_zero'] }],
    ['page=007&per_page=5', { page: ['must be written without leading zeros: 7'] }, { page: ['leading_zero'] }],
    ['page=1&page=1', { page: ['is given 2 times; give it once'] }, { page: ['repeated_parameter'] }],
    ['page=99999999999999999999', { page: [`is too large: page × per_page must stay below ${Number.MAX_SAFE_INTEGER}`] }, { page: ['out_of_range'] }],
    ['page=9007199254740991', { page: [`is too large: page × per_page must stay below ${Number.MAX_SAFE_INTEGER}`] }, { page: ['out_of_range'] }],
    ['per_page=05', { per_page: ['must be written without leading zeros: 5'] }, { per_page: ['leading_zero'] }],
    ['per_page=2&per_page=2&per_page=2', { per_page: ['is given 3 times; give it once'] }, { per_page: ['repeated_parameter'] }],
    ['per_page=99999999999999999999', { per_page: ['must be an integer between 1 and 5000'] }, { per_page: ['invalid_per_page'] }],
    ['page=0', { page: ['must be an integer of at least 1'] }, { page: ['invalid_page'] }],
    ['page[]=1', { page: ['must be an integer of at least 1'] }, { page: ['invalid_page'] }],
  ])('says the one thing wrong with %s, with its code', async (query, errors, codes) => {
    const { status, body } = await t.get(`/v3/payments?${query}`, key);
    expect(status).toBe(422);
    expect(body.errors).toEqual(errors);
    expect(body.codes).toEqual(codes);
  });

  it('says only that an export takes no paging, whatever the value', async () => {
    for (const query of ['per_page=01', 'page=1&page=1', 'page=99999999999999999999']) {
      const { status, body } = await t.get(`/v3/payments/export?${query}`, key);
      expect(status).toBe(422);
      expect(Object.values(body.codes).flat()).toEqual(['paging_not_accepted']);
    }
  });

  it('says the per_page range in Laravel’s error shape', async () => {
    const { body } = await t.get('/v3/payments?per_page=5001', key);
    expect(body.errors).toEqual({ per_page: ['must be an integer between 1 and 5000'] });
  });

  it('accepts the limits themselves', async () => {
    expect((await t.get('/v3/payments?per_page=1', key)).body.data).toHaveLength(1);
    expect((await t.get('/v3/payments?per_page=5000', key)).body.meta.per_page).toBe(5000);
    expect((await t.get('/v3/payments?page=900719925474&per_page=1', key)).status).toBe(200);
  });

  it('answers a page past the last with 200, empty data and null from/to', async () => {
    const { status, body } = await t.get('/v3/payments?page=4', key);
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ current_page: 4, from: null, to: null, last_page: 3, total: 25 });
    expect(body.links.next).toBeNull();
    expect(body.links.prev).toMatch(/page=3$/);
  });

  it('reports every bad parameter at once', async () => {
    const { body } = await t.get('/v3/payments?page=0&per_page=0&sort=size', key);
    expect(Object.keys(body.errors).sort()).toEqual(['page', 'per_page', 'sort']);
  });
});
