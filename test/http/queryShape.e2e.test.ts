import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';

/**
 * Every malformed query shape is a 422 naming it, never a silently different query: before
 * issue 12, `filter[__proto__]=1` was dropped by the parser and answered with the whole list.
 */
describe('malformed query shapes are a 422 naming the parameter', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('shapes')).key;
    await seed(t.database.db, 'shapes', 2, 10);
  });
  afterAll(() => t.close());

  const shapes: Array<[string, string]> = [
    ['filter[__proto__]=1', 'filter[__proto__]'],
    ['filter%5B__proto__%5D=1', 'filter[__proto__]'],
    ['filter[__proto__][x]=1', 'filter[__proto__][x]'],
    ['filter[created_at][__proto__]=1', 'filter[created_at][__proto__]'],
    ['filter[created_at][gte][__proto__]=1', 'filter[created_at][gte][__proto__]'],
    ['__proto__=1', '__proto__'],
    ['__proto__[filter]=1', '__proto__[filter]'],
    ['filter[constructor]=1', 'filter[constructor]'],
    ['filter[prototype]=1', 'filter[prototype]'],
    ['filter[created_at][constructor]=1', 'filter[created_at][constructor]'],
    ['filter[created_at][prototype]=1', 'filter[created_at][prototype]'],
    ['filter[created_at][gte][constructor]=1', 'filter[created_at][gte]'],
    ['filter[status]x=active', 'filter[status]x'],
    ['filter[status=active', 'filter[status'],
    ['filter]=1', 'filter]'],
    ['filter[status]]=active', 'filter[status]]'],
    ['[status]=active', '[status]'],
    ['=active', 'query'],
    ['filter[created_at]=1&filter[created_at][gte]=2026-01-01', 'filter[created_at]'],
    ['filter[created_at][gte]=2026-01-01&filter[created_at]=1', 'filter[created_at]'],
    ['sort=name&sort[x]=1', 'sort'],
    ['%zz=1', '%zz'],
    ['filter[%E0%A4%A]=1', 'filter[%E0%A4%A]'],
  ];
  for (const list of ['/v3/accounts', '/v3/payments']) {
    it.each(shapes)(`${list}?%s is a 422 naming %s`, async (query, name) => {
      const response = await t.app.inject({ url: `${list}?${query}`, headers: { authorization: `Bearer ${key}` } });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Object.keys(response.json().errors)).toEqual([name]);
    });
  }

  // Free-text filters: qs kept undecodable escapes as text, so these searched for `%ED%A0%80` literally.
  it.each([
    ['/v3/accounts?filter[name]=%ED%A0%80', 'filter[name]'],
    ['/v3/accounts?filter[email]=a%ff@example.com', 'filter[email]'],
    ['/v3/payments?filter[reference]=ord%ED%A0%80', 'filter[reference]'],
  ])('%s (escapes that are not UTF-8) is a 422 naming %s', async (url, name) => {
    const response = await t.app.inject({ url, headers: { authorization: `Bearer ${key}` } });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().errors).toEqual({ [name]: ['has a value that is not valid percent-encoded UTF-8'] });
  });

  it('still reads well-formed names with encoded brackets, and ignores unknown plain parameters', async () => {
    expect((await t.get('/v3/accounts?filter%5Bstatus%5D=active&utm_source=x&constructor=1&x[y]=1', key)).status).toBe(200);
  });
});
