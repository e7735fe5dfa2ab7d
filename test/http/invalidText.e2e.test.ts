import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { card } from '../support/cards.ts';
import { NOT_UNICODE_MESSAGE } from '../../src/http/invalidText.ts';

/**
 * Text that is not valid Unicode is refused with the field named, never stored changed: before
 * issue 12 a name holding a lone surrogate was a 201 echoing `\ud800`, read back as U+FFFD
 * (and on SQLite the list and the single read disagreed).
 */
describe('text fields must be valid Unicode', () => {
  let t: TestContext;
  let key: string;
  let account: string;
  let payment: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('unicode')).key;
    account = (await t.send('POST', '/v3/accounts', key, { name: 'Text', email: 'text@example.com', currency: 'EUR' })).body.data.id;
    payment = (await t.send('POST', '/v3/payments', key, { account_id: account, amount: 900, currency: 'EUR', card: card() })).body.data.id;
  });
  afterAll(() => t.close());

  /** JSON text as sent: `\ud800` stays an escape, which JSON.parse reads as a lone surrogate. */
  const send = (method: 'POST' | 'PATCH', url: string, json: string) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: json });

  it.each([
    ['POST', '/v3/accounts', '{"name":"\\ud800","email":"a@example.com","currency":"EUR"}', 'name'],
    ['POST', '/v3/accounts', '{"name":"ok\\udfff","email":"a@example.com","currency":"EUR"}', 'name'],
    ['POST', '/v3/accounts', '{"name":"ok","email":"a\\ud83d@example.com","currency":"EUR"}', 'email'],
    ['POST', '/v3/accounts', '{"name":"ok","email":"a@example.com","currency":"EUR","metadata":{"note":"x\\udc00"}}', 'metadata.note'],
    ['POST', '/v3/accounts', '{"name":"ok","email":"a@example.com","currency":"EUR","metadata":{"\\ud800":"x"}}', 'metadata.\ufffd'],
    ['PATCH', '/v3/accounts/{account}', '{"name":"\\ud800 renamed"}', 'name'],
    [
      'POST',
      '/v3/payments',
      '{"account_id":"{account}","amount":5,"currency":"EUR","description":"\\ud83d","card":{"number":"4242424242424242","exp_month":12,"exp_year":2031,"cvc":"123"}}',
      'description',
    ],
    [
      'POST',
      '/v3/payments',
      '{"account_id":"{account}","amount":5,"currency":"EUR","reference":"r\\udbff","card":{"number":"4242424242424242","exp_month":12,"exp_year":2031,"cvc":"123"}}',
      'reference',
    ],
    ['POST', '/v3/payments/{payment}/refunds', '{"amount":1,"reason":"\\udead"}', 'reason'],
  ] as const)('%s %s with a lone surrogate (%s) is a 422 naming %s, and nothing changes', async (method, url, json, field) => {
    const before = (await t.get(`/v3/accounts/${account}`, key)).body;
    const response = await send(method, url.replace('{account}', account).replace('{payment}', payment), json.replace('{account}', account));
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().errors).toEqual({ [field]: [NOT_UNICODE_MESSAGE] });
    expect((await t.get(`/v3/accounts/${account}`, key)).body).toEqual(before);
    expect((await t.get('/v3/accounts', key)).body.meta.total).toBe(1);
    expect((await t.get('/v3/payments', key)).body.meta.total).toBe(1);
  });

  it('a surrogate pair is a character like any other: stored, listed and read back as sent', async () => {
    const created = await send(
      'POST',
      '/v3/accounts',
      '{"name":"Card \\ud83d\\udcb3 shop","email":"pair@example.com","currency":"EUR","metadata":{"note":"\\ud83d\\ude00"}}',
    );
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id;
    const one = await t.get(`/v3/accounts/${id}`, key);
    expect(one.body.data).toMatchObject({ name: 'Card 💳 shop', metadata: { note: '😀' } });
    const listed = (await t.get('/v3/accounts?filter[name]=%F0%9F%92%B3', key)).body.data;
    expect(listed).toEqual([one.body.data]);
  });
});
