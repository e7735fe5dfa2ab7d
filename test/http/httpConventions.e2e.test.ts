import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDeprecationHeaders } from '../../src/versioning/deprecation.ts';
import { appOn, createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';

/** `<url>; rel="x"` pairs of a Link header, by rel. */
function parseLink(header: string): Record<string, string> {
  const links: Record<string, string> = {};
  for (const match of header.matchAll(/<([^>]*)>\s*;\s*rel="([^"]+)"/g)) links[match[2]] = match[1];
  return links;
}

describe('HTTP conventions: Link, ETag, compression, CORS, deprecation, versions', { timeout: 60_000 }, () => {
  let t: TestContext;
  let key: string;
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}`, ...headers } });

  beforeAll(async () => {
    t = await createTestApp();
    await seed(t.database.db, 'acme', 4, 60);
    key = (await t.tenant('acme')).key;
  }, 120_000);
  afterAll(() => t.close());

  it('lists carry an RFC 8288 Link header with exactly the body links', async () => {
    const response = await get('/v3/payments?per_page=7&filter[status]=succeeded,failed&sort=-amount&page=2');
    const body = response.json();
    expect(parseLink(String(response.headers.link))).toEqual({ first: body.links.first, prev: body.links.prev, next: body.links.next, last: body.links.last });
    const first = await get('/v3/accounts?per_page=100');
    expect(parseLink(String(first.headers.link))).toEqual({ first: first.json().links.first, last: first.json().links.last });
    expect(String(first.headers.link)).toBe(`<${first.json().links.first}>; rel="first", <${first.json().links.last}>; rel="last"`);
  });

  it('keeps the Link header well-formed when a carried parameter holds < > or a space', async () => {
    const response = await get('/v3/payments?per_page=5&note=%3Cb%3E&x=%20y');
    const links = parseLink(String(response.headers.link));
    expect(decodeURIComponent(links.next)).toBe(decodeURIComponent(response.json().links.next));
  });

  it('answers If-None-Match with 304 while the representation is unchanged, and 200 with a new tag after a change', async () => {
    const first = await get('/v3/accounts?per_page=2');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await get('/v3/accounts?per_page=2', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await get('/v3/accounts?per_page=2', { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);
    expect((await get('/v3/accounts?per_page=3', { 'if-none-match': etag })).statusCode).toBe(200);

    const account = (await t.send('POST', '/v3/accounts', key, { name: 'Tagged', email: 'tag@example.com', currency: 'EUR' })).body.data.id;
    const one = await get(`/v3/accounts/${account}`);
    expect(one.headers.etag).toBeDefined();
    expect(one.headers['cache-control']).toBe('private, no-cache');
    expect((await t.send('PATCH', `/v3/accounts/${account}`, key, { name: 'Renamed For ETag' })).status).toBe(200);
    const changed = await get(`/v3/accounts/${account}`, { 'if-none-match': String(one.headers.etag) });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(one.headers.etag);
    expect(changed.json().data.name).toBe('Renamed For ETag');
  });

  it('gives errors and writes no ETag', async () => {
    expect((await get('/v3/payments/pay_nope')).headers.etag).toBeUndefined();
    expect((await t.send('POST', '/v3/accounts', key, { name: 'N', email: 'n@example.com', currency: 'EUR' })).headers.etag).toBeUndefined();
  });

  it('compresses with brotli, gzip or zstd by Accept-Encoding, with a tag per encoding, and leaves small bodies alone', async () => {
    const url = '/v3/payments?per_page=50';
    const plain = await get(url);
    const gzip = await get(url, { 'accept-encoding': 'gzip' });
    const br = await get(url, { 'accept-encoding': 'gzip, br' });
    const zstd = await get(url, { 'accept-encoding': 'zstd' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(zstd.headers['content-encoding']).toBe('zstd');
    expect(gzip.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString())).toEqual(plain.json());
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json());
    expect(JSON.parse(zstdDecompressSync(zstd.rawPayload).toString())).toEqual(plain.json());
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(zstd.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    // What browsers send (zstd among others, all equal): what they got before zstd was offered.
    expect((await get(url, { 'accept-encoding': 'gzip, deflate, br, zstd' })).headers['content-encoding']).toBe('br');
    expect((await get(url, { 'accept-encoding': 'gzip, zstd' })).headers['content-encoding']).toBe('gzip');
    expect((await get(url, { 'accept-encoding': 'zstd, gzip;q=0.5' })).headers['content-encoding']).toBe('zstd');

    const base = String(plain.headers.etag).slice(0, -1);
    expect(gzip.headers.etag).toBe(`${base}-gzip"`);
    expect(br.headers.etag).toBe(`${base}-br"`);
    expect(zstd.headers.etag).toBe(`${base}-zstd"`);
    const revalidated = await get(url, { 'accept-encoding': 'gzip', 'if-none-match': String(gzip.headers.etag) });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.headers.etag).toBe(gzip.headers.etag);

    const small = await t.app.inject({ url: '/health', headers: { 'accept-encoding': 'gzip, br' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual({ status: 'ok' });
  });

  it('keeps Location on 201', async () => {
    const created = await t.send('POST', '/v3/accounts', key, { name: 'Loc', email: 'loc@example.com', currency: 'EUR' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/v3/accounts/${created.body.data.id}`);
    expect((await get(String(created.headers.location))).statusCode).toBe(200);
  });

  it.each(['/v2/payments', '/v4/accounts', '/v1'])('%s (an unknown version prefix) is a 404 problem naming the versions served', async (url) => {
    const response = await get(url);
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json().detail).toMatch(/does not exist here; this service serves \/v3/);
  });

  it('sends no CORS headers unless CORS_ORIGINS is set', async () => {
    const response = await get('/v3/accounts', { origin: 'https://app.example' });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('with CORS_ORIGINS, lets the listed origins call and read the paging and caching headers', async () => {
    const app = await appOn(t.database, { corsOrigins: ['https://app.example'] });
    try {
      const preflight = await app.inject({
        method: 'OPTIONS',
        url: '/v3/payments',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,idempotency-key,content-type',
        },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('idempotency-key');
      const actual = await app.inject({ url: '/v3/payments?per_page=2', headers: { origin: 'https://app.example', authorization: `Bearer ${key}` } });
      expect(actual.headers['access-control-allow-origin']).toBe('https://app.example');
      const exposed = String(actual.headers['access-control-expose-headers']).toLowerCase();
      for (const header of ['link', 'etag', 'x-request-id', 'ratelimit-remaining', 'location']) expect(exposed).toContain(header);
      const stranger = await app.inject({ url: '/v3/payments', headers: { origin: 'https://evil.example', authorization: `Bearer ${key}` } });
      expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('marks a route configured as deprecated with Deprecation, Sunset and a deprecation link', async () => {
    const app = Fastify();
    registerDeprecationHeaders(app);
    app.get(
      '/v3/old',
      { config: { deprecation: { since: '2026-12-01T00:00:00Z', sunset: '2027-06-01T00:00:00Z', link: 'https://docs.payments.example/changelog#3.4.0' } } },
      async (_req, reply) => {
        reply.header('link', '<https://x.example/?page=2>; rel="next"');
        return { ok: true };
      },
    );
    app.get('/v3/current', async () => ({ ok: true }));
    const old = await app.inject({ url: '/v3/old' });
    expect(old.headers.deprecation).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
    expect(old.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    expect(old.headers.link).toBe(
      '<https://x.example/?page=2>; rel="next", <https://docs.payments.example/changelog#3.4.0>; rel="deprecation"; type="text/html"',
    );
    const current = await app.inject({ url: '/v3/current' });
    expect(current.headers.deprecation).toBeUndefined();
    expect(current.headers.sunset).toBeUndefined();
    await app.close();
  });

  it('nothing the service serves today is deprecated', async () => {
    const doc = (await t.app.inject({ url: '/v3/openapi.json' })).json();
    const deprecated = Object.values(doc.paths as Record<string, Record<string, { deprecated?: boolean }>>).flatMap((item) =>
      Object.values(item).filter((op) => op.deprecated),
    );
    expect(deprecated).toEqual([]);
    expect((await get('/v3/payments')).headers.deprecation).toBeUndefined();
  });
});
