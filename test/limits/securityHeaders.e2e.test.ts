import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';

const EXPECTED = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

describe('security headers for a JSON API, on every answer', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('headers')).key;
  });
  afterAll(() => t.close());

  const auth = () => ({ authorization: `Bearer ${key}` });
  const cases: Array<[string, () => Promise<{ statusCode: number; headers: Record<string, unknown> }>, number]> = [
    ['a list', () => t.app.inject({ url: '/v3/payments', headers: auth() }), 200],
    [
      'a write',
      () => t.app.inject({ method: 'POST', url: '/v3/accounts', headers: auth(), payload: { name: 'H', email: 'h@example.com', currency: 'USD' } }),
      201,
    ],
    ['no key', () => t.app.inject({ url: '/v3/payments' }), 401],
    ['an invalid query', () => t.app.inject({ url: '/v3/payments?page=0', headers: auth() }), 422],
    ['an unknown route', () => t.app.inject({ url: '/nope' }), 404],
    ['a malformed path', () => t.app.inject({ url: '/v3/payments/%E0%A4%A', headers: auth() }), 404],
    ['an overlong path segment', () => t.app.inject({ url: `/v3/payments/${'a'.repeat(2000)}`, headers: auth() }), 404],
    ['health', () => t.app.inject({ url: '/health' }), 200],
  ];

  it.each(cases)('%s', async (_, send, status) => {
    const response = await send();
    expect(response.statusCode).toBe(status);
    expect(response.headers).toMatchObject(EXPECTED);
    expect(response.headers['x-request-id']).toBeTruthy();
    if (status >= 400 || status === 201) expect(response.headers['cache-control']).toBe('no-store');
    // Successful reads are revalidated through their ETag (src/http/entityTagsAndCompression.ts), not forced off here.
    else expect(response.headers['cache-control']).toBe('private, no-cache');
  });
});
