import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { registeredRoutes } from '../support/routeList.ts';
import { seed } from '../support/seedHelpers.ts';

describe('methods, HEAD, revalidation and the auth scheme over HTTP', { timeout: 60_000 }, () => {
  let t: TestContext;
  let key: string;
  let account: string;
  let payment: string;
  const request = (method: string, url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${key}`, ...headers } });
  /** A concrete URL for a registered path: the tenant's own ids in place of the parameters. */
  const concrete = (path: string) => path.replace('{account}', account).replace('{payment}', payment).replace('{*}', 'index.html');

  beforeAll(async () => {
    t = await createTestApp();
    await seed(t.database.db, 'acme', 2, 4);
    key = (await t.tenant('acme')).key;
    account = (await t.get('/v3/accounts?per_page=1', key)).body.data[0].id;
    payment = (await t.get('/v3/payments?per_page=1', key)).body.data[0].id;
  }, 120_000);
  afterAll(() => t.close());

  it('answers a known path asked with a method it does not serve with a 405 problem that lists the allowed ones', async () => {
    // A body the path would never take is not even read: an empty JSON body is not a 400 first.
    const response = await request('PUT', '/v3/payments', { 'content-type': 'application/json' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      status: 405,
      type: expect.stringMatching(/method-not-allowed$/),
      detail: '/v3/payments answers GET, HEAD, POST, not PUT.',
    });

    const one = await request('POST', `/v3/accounts/${account}`);
    expect(one.statusCode).toBe(405);
    expect(one.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    expect((await request('DELETE', `/v3/payments/${payment}/capture`)).headers.allow).toBe('POST');
    expect((await request('POST', '/health/')).headers.allow).toBe('GET, HEAD');
  });

  it('still answers an unknown path with a 404, whatever the method', async () => {
    for (const method of ['GET', 'PUT', 'POST']) {
      const response = await request(method, '/v3/invoices');
      expect(response.statusCode).toBe(404);
      expect(response.headers.allow).toBeUndefined();
    }
  });

  it('answers HEAD wherever GET is answered, with the GET headers and no body', async () => {
    const gets = registeredRoutes(t.app).filter((r) => r.method === 'GET');
    expect(gets.length).toBeGreaterThan(8);
    for (const { path } of gets) {
      const url = concrete(path);
      const [get, head] = [await request('GET', url), await request('HEAD', url)];
      expect(head.statusCode, `HEAD ${url}`).toBe(get.statusCode);
      expect(head.body, `HEAD ${url}`).toBe('');
      expect(head.headers['content-type'], `HEAD ${url}`).toBe(get.headers['content-type']);
      // /metrics changes with every request (it counts them); the API's own representations do not.
      if (url.startsWith('/v3/')) expect(head.headers.etag, `HEAD ${url}`).toBe(get.headers.etag);
    }
  });

  it('keeps ETag, Cache-Control and Vary on a 304, as the 200 carried them', async () => {
    for (const url of ['/v3/accounts?per_page=2', `/v3/payments/${payment}`, '/v3/payments?per_page=4']) {
      for (const encoding of [{}, { 'accept-encoding': 'gzip' }] as Array<Record<string, string>>) {
        const full = await request('GET', url, encoding);
        expect(full.statusCode).toBe(200);
        expect(full.headers.vary).toMatch(/accept-encoding/i);
        const revalidated = await request('GET', url, { ...encoding, 'if-none-match': String(full.headers.etag) });
        expect(revalidated.statusCode, url).toBe(304);
        expect(revalidated.headers.etag).toBe(full.headers.etag);
        expect(revalidated.headers['cache-control']).toBe(full.headers['cache-control']);
        expect(revalidated.headers.vary).toBe(full.headers.vary);
      }
    }
  });

  it('tags a large body, hashed off the event loop, with the SHA-256 of its bytes like a small one, and revalidates it', async () => {
    const small = await request('GET', '/v3/accounts?per_page=1');
    const large = await request('GET', '/v3/openapi.json');
    expect(large.rawPayload.length).toBeGreaterThan(64 * 1024);
    for (const response of [small, large]) {
      const sha = createHash('sha256').update(response.rawPayload).digest('base64url').slice(0, 27);
      expect(response.headers.etag).toBe(`"${sha}"`);
    }
    const again = await request('GET', '/v3/openapi.json', { 'if-none-match': large.headers.etag as string });
    expect(again.statusCode).toBe(304);
  });

  it('reads the Authorization scheme without regard to case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const response = await t.app.inject({ method: 'GET', url: '/v3/accounts?per_page=1', headers: { authorization: `${scheme} ${key}` } });
      expect(response.statusCode, scheme).toBe(200);
    }
    const wrongScheme = await t.app.inject({ method: 'GET', url: '/v3/accounts', headers: { authorization: `Basic ${key}` } });
    expect(wrongScheme.statusCode).toBe(401);
  });
});
