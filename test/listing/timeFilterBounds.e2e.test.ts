import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';

// Found by the fuzzer (test/limits/fuzz.e2e.test.ts): year 0 was a 500 on PostgreSQL.
describe('time filters accept years 0001 to 9999 only, the same on both databases', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('times')).key;
    await seed(t.database.db, 'times', 2, 10);
  });
  afterAll(() => t.close());

  it.each(['0000-01-01', '0000-06-01T00:00:00Z', '0001-01-01T00:00:00+00:01', '9999-12-31T23:59:59-14:00'])('%s is a 422 naming the filter', async (value) => {
    const response = await t.get(`/v3/payments?filter[created_at][gte]=${encodeURIComponent(value)}`, key);
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['filter[created_at][gte]']);
  });

  it.each([
    ['0001-01-01', 10],
    ['9999-12-31T23:59:59Z', 0],
  ])('%s is at the edge and fine', async (value, total) => {
    const response = await t.get(`/v3/payments?filter[created_at][gte]=${encodeURIComponent(value)}`, key);
    expect(response.status).toBe(200);
    expect(response.body.meta.total).toBe(total);
  });
});
