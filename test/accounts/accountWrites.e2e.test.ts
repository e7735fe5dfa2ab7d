import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { card } from '../support/cards.ts';

describe('managing accounts', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('owner')).key;
  });
  afterAll(() => t.close());

  const create = (body: unknown) => t.send('POST', '/v3/accounts', key, body);

  it('creates an account: 201, Location, the resource, and it is listed', async () => {
    const { status, body, headers } = await create({ name: 'Ada Lovelace', email: 'ada@example.com', currency: 'GBP', metadata: { crm: '42' } });
    expect(status).toBe(201);
    expect(headers.location).toBe(`/v3/accounts/${body.data.id}`);
    expect(body.data).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com', currency: 'GBP', status: 'active', metadata: { crm: '42' } });
    expect(body.data.id).toMatch(/^acc_[0-9A-Z]{26}$/);
    expect((await t.get(headers.location as string, key)).body).toEqual(body);
    expect((await t.get('/v3/accounts', key)).body.data.map((a: { id: string }) => a.id)).toContain(body.data.id);
  });

  it.each([
    [{ email: 'a@b.co', currency: 'USD' }, 'name', 'is required'],
    [{ name: '', email: 'a@b.co', currency: 'USD' }, 'name', ''],
    [{ name: '   ', email: 'a@b.co', currency: 'USD' }, 'name', ''],
    [{ name: 'x'.repeat(201), email: 'a@b.co', currency: 'USD' }, 'name', ''],
    [{ name: 'A', email: 'not-an-email', currency: 'USD' }, 'email', ''],
    [{ name: 'A', email: 'a @b.co', currency: 'USD' }, 'email', ''],
    [{ name: 'A', email: 'a@b.co', currency: 'usd' }, 'currency', ''],
    [{ name: 'A', email: 'a@b.co', currency: 'ABC' }, 'currency', 'ISO 4217'],
    [{ name: 'A', email: 'a@b.co', currency: 'USD', status: 'closed' }, 'status', ''],
    [{ name: 'A', email: 'a@b.co', currency: 'USD', metadata: { k: 5 } }, 'metadata.k', ''],
    [{ name: 'A', email: 'a@b.co', currency: 'USD', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata', ''],
    [{ name: 'A', email: 'a@b.co', currency: 'USD', metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata', ''],
    [{ name: 'A', email: 'a@b.co', currency: 'USD', balance: 5 }, 'balance', 'is not a field here; the fields are name, email, currency, status, metadata'],
  ])('rejects %j with a 422 naming %s', async (body, field, message) => {
    const response = await create(body);
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Object.keys(response.body.errors)).toContain(field);
    expect(response.body.errors[field].join(' ')).toContain(message);
  });

  it('names every bad field at once', async () => {
    const { body } = await create({ name: '', email: 'nope', currency: 'usd' });
    expect(Object.keys(body.errors).sort()).toEqual(['currency', 'email', 'name']);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])('names an unknown field called %s like any other (found by the fuzzer: a 500)', async (field) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: `{"name":"A","email":"a@example.com","currency":"EUR","${field}":"x"}`,
    });
    expect(response.statusCode).toBe(422);
    expect(Object.keys(response.json().errors)).toEqual([field]);
  });

  it('refuses a body with __proto__ as malformed (400 problem), before it reaches anything', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"name":"A","email":"a@example.com","currency":"EUR","__proto__":{"x":1}}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('names an unknown filter called constructor like any other', async () => {
    const { status, body } = await t.get('/v3/accounts?filter[constructor]=x&filter[toString]=y', key);
    expect(status).toBe(422);
    expect(Object.keys(body.errors).sort()).toEqual(['filter[constructor]', 'filter[toString]']);
  });

  it('updates name, email, status and metadata, moving updated_at', async () => {
    const { body: created } = await create({ name: 'Grace', email: 'grace@example.com', currency: 'USD' });
    await new Promise((r) => setTimeout(r, 5));
    const { status, body } = await t.send('PATCH', `/v3/accounts/${created.data.id}`, key, {
      name: 'Grace Hopper',
      status: 'suspended',
      metadata: { team: 'navy' },
    });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ name: 'Grace Hopper', email: 'grace@example.com', status: 'suspended', metadata: { team: 'navy' } });
    expect(body.data.updated_at > created.data.updated_at).toBe(true);
    expect(body.data.created_at).toBe(created.data.created_at);
  });

  it('refuses an empty or unknown change, and changes to a closed account', async () => {
    const { body: created } = await create({ name: 'Alan', email: 'alan@example.com', currency: 'USD' });
    const url = `/v3/accounts/${created.data.id}`;
    expect((await t.send('PATCH', url, key, {})).status).toBe(422);
    expect((await t.send('PATCH', url, key, { currency: 'EUR' })).status).toBe(422);
    expect((await t.send('PATCH', url, key, { status: 'closed' })).body.data.status).toBe('closed');
    const again = await t.send('PATCH', url, key, { status: 'active' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('closed');
  });

  it('refuses payments on a closed account with a 409', async () => {
    const { body: created } = await create({ name: 'Edsger', email: 'ed@example.com', currency: 'EUR' });
    await t.send('PATCH', `/v3/accounts/${created.data.id}`, key, { status: 'closed' });
    const response = await t.send('POST', '/v3/payments', key, { account_id: created.data.id, amount: 100, currency: 'EUR', card: card() });
    expect(response.status).toBe(409);
    expect(response.body.detail).toContain('closed');
  });

  it('deletes an account without payments (204, then 404) and refuses one with payments (409)', async () => {
    const { body: empty } = await create({ name: 'Barbara', email: 'b@example.com', currency: 'USD' });
    const deleted = await t.send('DELETE', `/v3/accounts/${empty.data.id}`, key);
    expect(deleted.status).toBe(204);
    expect((await t.get(`/v3/accounts/${empty.data.id}`, key)).status).toBe(404);
    expect((await t.send('DELETE', `/v3/accounts/${empty.data.id}`, key)).status).toBe(404);

    const { body: used } = await create({ name: 'Donald', email: 'd@example.com', currency: 'USD' });
    await t.send('POST', '/v3/payments', key, { account_id: used.data.id, amount: 100, currency: 'USD', card: card() });
    const refused = await t.send('DELETE', `/v3/accounts/${used.data.id}`, key);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('close it instead');
  });

  it('needs the write scope (403) and never touches another tenant’s account (404)', async () => {
    const reader = await t.tenant('owner', ['read']);
    const denied = await t.send('POST', '/v3/accounts', reader.key, { name: 'R', email: 'r@example.com', currency: 'USD' });
    expect(denied.status).toBe(403);
    const { body: mine } = await create({ name: 'Mine', email: 'm@example.com', currency: 'USD' });
    const other = await t.tenant('stranger');
    expect((await t.send('PATCH', `/v3/accounts/${mine.data.id}`, other.key, { name: 'Theirs' })).status).toBe(404);
    expect((await t.send('DELETE', `/v3/accounts/${mine.data.id}`, other.key)).status).toBe(404);
    expect((await t.get(`/v3/accounts/${mine.data.id}`, key)).body.data.name).toBe('Mine');
  });

  it('answers a non-JSON body with 415 and broken JSON with 400', async () => {
    const text = await t.app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(text.statusCode).toBe(415);
    const broken = await t.app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
