import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { seed } from '../../support/seedHelpers.ts';

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

describe('time bounds finer than a millisecond compare exactly, at any offset', () => {
  let t: TestContext;
  let key: string;
  let times: number[];
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('fine')).key;
    await seed(t.database.db, 'fine', 2, 40);
    const all = await t.get('/v3/payments?per_page=100', key);
    times = all.body.data.map((p: { created_at: string }) => Date.parse(p.created_at));
  });
  afterAll(() => t.close());

  /** `ms` + `nanos` ns (0 < nanos < 1e6) written with nine digits, in UTC or at +05:30. */
  const bound = (ms: number, nanos: number, offset: boolean) => {
    const at = new Date(ms + (offset ? 5.5 * 3600_000 : 0)).toISOString().slice(0, 23);
    return `${at}${String(nanos).padStart(9, '0').slice(3)}${offset ? '+05:30' : 'Z'}`;
  };

  it.each([false, true])('each operator counts what a nanosecond comparison counts (offset +05:30: %s)', async (offset) => {
    const at = times[17];
    for (const [ms, nanos] of [
      [at, 1],
      [at - 1, 999_999],
      [at, 500_000],
    ]) {
      // In whole nanoseconds (a double cannot hold a millisecond timestamp plus one nanosecond).
      const exact = BigInt(ms) * 1_000_000n + BigInt(nanos);
      const ns = times.map((x) => BigInt(x) * 1_000_000n);
      const text = bound(ms, nanos, offset);
      const expected = {
        gte: ns.filter((x) => x >= exact).length,
        gt: ns.filter((x) => x > exact).length,
        lte: ns.filter((x) => x <= exact).length,
        lt: ns.filter((x) => x < exact).length,
      };
      for (const [op, total] of Object.entries(expected)) {
        const response = await t.get(`/v3/payments?filter[created_at][${op}]=${encodeURIComponent(text)}`, key);
        expect(response.status, text).toBe(200);
        expect(response.body.meta.total, `${op} ${text}`).toBe(total);
      }
    }
  });
});
