import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { NOT_UNICODE_MESSAGE } from '../../src/http/invalidText.ts';
import { card } from '../support/cards.ts';

/**
 * JSON bodies are read as UTF-8 from their bytes: bytes that are not UTF-8 inside a string are a
 * 422 naming the field (they used to become U+FFFD silently), elsewhere a 400; a body labelled
 * with another charset is a 415 (an ISO-8859-1 body used to be stored garbled).
 */
describe('JSON bodies are UTF-8, byte for byte', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('bytes')).key;
  });
  afterAll(() => t.close());

  const post = (payload: Buffer, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url: '/v3/accounts', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, payload });
  const body = (parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
  const accounts = async () => (await t.get('/v3/accounts', key)).body.meta.total;

  it.each([
    ['a byte that never starts UTF-8 (0xFF) in the name', 'name', body(['{"name":"a', [0xff], 'b","email":"a@example.com","currency":"EUR"}'])],
    ['an overlong slash (0xC0 0xAF) in the email', 'email', body(['{"name":"a","email":"a', [0xc0, 0xaf], '@example.com","currency":"EUR"}'])],
    [
      'an encoded surrogate (0xED 0xA0 0x80) in a metadata value',
      'metadata.note',
      body(['{"name":"a","email":"a@example.com","currency":"EUR","metadata":{"note":"', [0xed, 0xa0, 0x80], '"}}']),
    ],
    [
      'a truncated sequence (0xE2 0x82) at the end of a metadata value',
      'metadata.note',
      body(['{"name":"a","email":"a@example.com","currency":"EUR","metadata":{"note":"x', [0xe2, 0x82], '"}}']),
    ],
    ['ISO-8859-1 bytes of Ü sent as UTF-8', 'name', body(['{"name":"', [0xdc], 'ber","email":"a@example.com","currency":"EUR"}'])],
  ])('%s is a 422 naming %s', async (_, field, payload) => {
    const response = await post(payload);
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().errors).toEqual({ [field]: [NOT_UNICODE_MESSAGE] });
    expect(await accounts()).toBe(0);
  });

  it.each([
    ['between two fields', body(['{"name":"a",', [0xff], '"email":"a@example.com","currency":"EUR"}'])],
    ['right after a backslash in a string', body(['{"name":"a\\', [0xff], '","email":"a@example.com","currency":"EUR"}'])],
  ])('a byte that is not UTF-8 %s is malformed JSON: a 400', async (_, payload) => {
    const response = await post(payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await accounts()).toBe(0);
  });

  it.each([
    'application/json; charset=iso-8859-1',
    'application/json; charset=latin1',
    'application/json;charset="windows-1252"',
    'application/json; charset=utf-16',
  ])('a body labelled %s is a 415, and nothing is stored', async (contentType) => {
    const response = await post(body(['{"name":"', [0xdc], 'NICODE","email":"latin@example.com","currency":"EUR"}']), contentType);
    expect(response.statusCode, response.body).toBe(415);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json().detail).toMatch(/must be UTF-8/);
    expect(await accounts()).toBe(0);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'APPLICATION/JSON; Charset=UTF8'])(
    '%s with UTF-8 text is stored as sent',
    async (contentType) => {
      const name = `ÜNÏCÖDÉ Straße ${contentType.length}`;
      const response = await post(body([JSON.stringify({ name, email: `u${contentType.length}@example.com`, currency: 'EUR' })]), contentType);
      expect(response.statusCode, response.body).toBe(201);
      expect((await t.get(`/v3/accounts/${response.json().data.id}`, key)).body.data.name).toBe(name);
    },
  );
});

/**
 * Every JSON client library labels a POST `application/json`, body or not: on routes whose body
 * may be left out, an empty body is read as no body (the defaults), never "Body cannot be empty".
 */
describe('an empty JSON body where the body is optional', () => {
  let t: TestContext;
  let key: string;
  let account: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('empty-bodies')).key;
    account = (await t.send('POST', '/v3/accounts', key, { name: 'Ada', email: 'ada@example.com', currency: 'EUR' })).body.data.id;
  });
  afterAll(() => t.close());

  const pay = async (capture: boolean) =>
    (await t.send('POST', '/v3/payments', key, { account_id: account, amount: 2500, currency: 'EUR', capture, card: card() })).body.data.id as string;
  const emptyJson = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, payload: '' });

  it('captures the whole amount, cancels, and refunds everything left, as without a body', async () => {
    const captured = await emptyJson(`/v3/payments/${await pay(false)}/capture`);
    expect(captured.statusCode, captured.body).toBe(200);
    expect(captured.json().data).toMatchObject({ status: 'succeeded', amount: 2500, captured_at: expect.any(String) });
    const canceled = await emptyJson(`/v3/payments/${await pay(false)}/cancel`);
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(canceled.json().data.status).toBe('canceled');
    const refunded = await emptyJson(`/v3/payments/${await pay(true)}/refunds`);
    expect(refunded.statusCode, refunded.body).toBe(200);
    expect(refunded.json().data).toMatchObject({ status: 'refunded', amount_refunded: 2500 });
  });

  it('is the same request as no body to an Idempotency-Key: replayed, not "another request"', async () => {
    const id = await pay(true);
    const first = await t.send('POST', `/v3/payments/${id}/refunds`, key, undefined, { 'idempotency-key': 'refund-empty' });
    expect(first.status).toBe(200);
    const again = await emptyJson(`/v3/payments/${id}/refunds`, { 'idempotency-key': 'refund-empty' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('rotates a webhook secret and resends an event with an empty JSON body', async () => {
    const hook = (await t.send('POST', '/v3/webhook_endpoints', key, { url: 'https://shop.example.com/hooks', enabled_events: ['*'] })).body.data;
    expect((await emptyJson(`/v3/webhook_endpoints/${hook.id}/rotate_secret`)).statusCode).toBe(200);
    const event = (await t.get('/v3/events', key)).body.data[0].id;
    expect((await emptyJson(`/v3/events/${event}/resend`)).statusCode).toBe(202);
  });

  it('still refuses an empty JSON body where a body is required', async () => {
    const response = await emptyJson('/v3/accounts');
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/empty/i);
  });
});
