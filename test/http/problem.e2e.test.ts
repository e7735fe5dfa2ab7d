import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { DEFAULT_LIMITS } from '../../src/config/loadConfig.ts';
import { MAX_NAMED_FIELDS } from '../../src/core/problem.ts';

/** A 422 stays small whatever the body: at most 20 fields named, each briefly, and how many more there were. */
describe('a 422 names a bounded number of fields', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('bounded')).key;
  });
  afterAll(() => t.close());

  const post = (payload: string) =>
    t.app.inject({ method: 'POST', url: '/v3/accounts', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload });
  const valid = { name: 'Bounded', email: 'b@example.com', currency: 'EUR' };

  it('a body just under the limit made of unknown fields gets 20 of them named and the count of the rest, in a few KB', async () => {
    const unknown: Record<string, number> = {};
    for (let i = 0, size = 0; size < DEFAULT_LIMITS.bodyLimit - 200; i++) {
      unknown[`unknown_field_${i}`] = 1;
      size += `"unknown_field_${i}":1,`.length;
    }
    const count = Object.keys(unknown).length;
    const response = await post(JSON.stringify({ ...valid, ...unknown }));
    expect(response.statusCode).toBe(422);
    expect(response.body.length).toBeLessThan(4096);
    const problem = response.json();
    expect(Object.keys(problem.errors)).toHaveLength(MAX_NAMED_FIELDS);
    expect(problem.errors.unknown_field_0).toEqual(['is not a field here; the fields are name, email, currency, status, metadata']);
    expect(problem.codes.unknown_field_0).toEqual(['unknown_field']);
    expect(problem.detail).toContain(`and ${count - MAX_NAMED_FIELDS} more fields not listed`);
  });

  it('exactly 20 unknown fields are all named, with nothing said about more', async () => {
    const unknown = Object.fromEntries(Array.from({ length: MAX_NAMED_FIELDS }, (_, i) => [`extra_${i}`, 1]));
    const problem = (await post(JSON.stringify({ ...valid, ...unknown }))).json();
    expect(Object.keys(problem.errors).sort()).toEqual(Object.keys(unknown).sort());
    expect(problem.detail).not.toContain('more');
  });

  it('a field with a name of 200,000 characters is named by its first 100', async () => {
    const name = 'n'.repeat(200_000);
    const response = await post(JSON.stringify({ ...valid, [name]: 1 }));
    expect(response.statusCode).toBe(422);
    expect(response.body.length).toBeLessThan(1024);
    expect(response.json().errors).toEqual({ [`${'n'.repeat(100)}…`]: ['is not a field here; the fields are name, email, currency, status, metadata'] });
    expect(response.json().codes).toEqual({ [`${'n'.repeat(100)}…`]: ['unknown_field'] });
  });

  it('hundreds of bad metadata keys and values stay bounded too', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`bad key ${i}`, 'v'.repeat(501)]));
    const response = await post(JSON.stringify({ ...valid, metadata }));
    expect(response.statusCode).toBe(422);
    expect(response.body.length).toBeLessThan(4096);
    expect(Object.keys(response.json().errors).length).toBeLessThanOrEqual(MAX_NAMED_FIELDS);
    expect(response.json().detail).toMatch(/more fields? not listed/);
  });
});
