import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';

type Row = Record<string, any>;

/** The keys of `record`, in order: field order is part of what a fieldset promises. */
const keysOf = (record: Row) => Object.keys(record);

describe('sparse fieldsets and expansion (fields[type], expand[])', () => {
  let t: TestContext;
  let key: string;
  let payments: Row[];
  let accounts: Map<string, Row>;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('fieldsets')).key;
    await seed(t.database.db, 'fieldsets', 4, 30);
    payments = (await t.get('/v3/payments?per_page=100', key)).body.data;
    accounts = new Map(((await t.get('/v3/accounts?per_page=100', key)).body.data as Row[]).map((a) => [a.id, a]));
  });
  afterAll(() => t.close());

  it('keeps only the fields asked for, in the resource’s own order whatever the order given, and leaves links and meta as they were', async () => {
    const full = await t.get('/v3/payments?per_page=7&page=2', key);
    const sparse = await t.get('/v3/payments?per_page=7&page=2&fields[payments]=status,id,amount', key);
    expect(sparse.status).toBe(200);
    expect(sparse.body.data).toEqual(full.body.data.map((p: Row) => ({ id: p.id, amount: p.amount, status: p.status })));
    for (const payment of sparse.body.data) expect(keysOf(payment)).toEqual(['id', 'amount', 'status']);
    // The links carry the fieldset on (as they carry any parameter), and say the same otherwise.
    const withoutFields = (value: unknown) => JSON.stringify(value).replaceAll('&fields[payments]=status,id,amount', '');
    expect(JSON.stringify(sparse.body.links)).toContain('&fields[payments]=status,id,amount');
    expect(withoutFields(sparse.body.meta)).toBe(JSON.stringify(full.body.meta));
    expect(withoutFields(sparse.body.links)).toBe(JSON.stringify(full.body.links));
    expect(withoutFields(sparse.headers.link)).toBe(JSON.stringify(full.headers.link));
  });

  it('trims accounts, events and the single reads the same way', async () => {
    const [account] = accounts.values();
    const list = await t.get('/v3/accounts?fields[accounts]=name,id', key);
    expect(list.body.data[0]).toEqual({ id: list.body.data[0].id, name: accounts.get(list.body.data[0].id)?.name });
    const one = await t.get(`/v3/accounts/${account.id}?fields[accounts]=email`, key);
    expect(one.body).toEqual({ data: { email: account.email } });
    const payment = await t.get(`/v3/payments/${payments[3].id}?fields[payments]=id,card`, key);
    expect(payment.body).toEqual({ data: { id: payments[3].id, card: payments[3].card } });
    // A write records an event.
    const created = await t.send('POST', '/v3/accounts', key, { name: 'Evented', email: 'evented@example.com', currency: 'EUR' });
    expect(created.status).toBe(201);
    const events = await t.get('/v3/events?fields[events]=type', key);
    expect(events.body.data.length).toBeGreaterThan(0);
    for (const e of events.body.data) expect(keysOf(e)).toEqual(['type']);
    const [first] = (await t.get('/v3/events', key)).body.data;
    const event = await t.get(`/v3/events/${first.id}?fields[events]=type,id`, key);
    expect(event.body).toEqual({ data: { id: first.id, type: first.type } });
  });

  it('expands each payment’s account as GET /v3/accounts/{id} renders it, right after account_id', async () => {
    const { status, body } = await t.get('/v3/payments?per_page=100&expand[]=account', key);
    expect(status).toBe(200);
    expect(body.data).toHaveLength(payments.length);
    for (const [i, payment] of body.data.entries()) {
      const single = (await t.get(`/v3/accounts/${payments[i].account_id}`, key)).body.data;
      expect(payment).toEqual({ ...payments[i], account: single });
      expect(keysOf(payment).slice(0, 3)).toEqual(['id', 'account_id', 'account']);
    }
  });

  it('trims the expanded account by fields[accounts], and the payment by fields[payments], on lists and single reads', async () => {
    const url = '/v3/payments?fields[payments]=id,amount&fields[accounts]=id,name&expand[]=account';
    const { body } = await t.get(url, key);
    const first = payments[0];
    expect(body.data[0]).toEqual({ id: first.id, account: { id: first.account_id, name: accounts.get(first.account_id)?.name }, amount: first.amount });
    expect(keysOf(body.data[0])).toEqual(['id', 'account', 'amount']);
    const one = await t.get(`/v3/payments/${first.id}?expand=account&fields[accounts]=status`, key);
    expect(one.body.data).toEqual({ ...first, account: { status: accounts.get(first.account_id)?.status } });
    const ofAccount = await t.get(`/v3/accounts/${first.account_id}/payments?expand[]=account&fields[payments]=account_id`, key);
    for (const p of ofAccount.body.data) expect(p).toEqual({ account_id: first.account_id, account: accounts.get(first.account_id) });
  });

  it('gives each representation its own ETag, and a 304 for the one the client holds', async () => {
    const full = await t.get('/v3/payments?per_page=5', key);
    const sparse = await t.get('/v3/payments?per_page=5&fields[payments]=id', key);
    const expanded = await t.get('/v3/payments?per_page=5&expand[]=account', key);
    const tags = [full, sparse, expanded].map((r) => r.headers.etag);
    expect(new Set(tags).size).toBe(3);
    const again = await t.app.inject({
      method: 'GET',
      url: '/v3/payments?per_page=5&fields[payments]=id',
      headers: { authorization: `Bearer ${key}`, 'if-none-match': String(sparse.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const other = await t.app.inject({
      method: 'GET',
      url: '/v3/payments?per_page=5&fields[payments]=id,amount',
      headers: { authorization: `Bearer ${key}`, 'if-none-match': String(sparse.headers.etag) },
    });
    expect(other.statusCode).toBe(200);
    expect(String(other.headers.vary)).toMatch(/accept-encoding/i);
  });

  it('answers an unknown field, an unknown type, an unknown expansion and an account fieldset without expand with one 422 naming each', async () => {
    const { status, body } = await t.get('/v3/payments?fields[payments]=id,amout,colour&fields[cards]=x&expand[]=customer', key);
    expect(status).toBe(422);
    expect(body.codes).toEqual({
      'fields[payments]': ['unknown_resource_field'],
      'fields[cards]': ['unknown_fields_type'],
      expand: ['unknown_expansion'],
    });
    expect(body.errors['fields[payments]'][0]).toMatch(/^names amout, colour, not fields of payments; fields of payments: id, account_id, amount,/);
    expect(body.errors['fields[cards]'][0]).toBe('is not a type this request returns; types here: payments, accounts');
    expect(body.errors.expand[0]).toBe('names customer, which does not expand; here: expand[]=account');
    const lonely = await t.get('/v3/payments?fields[accounts]=id', key);
    expect(lonely.status).toBe(422);
    expect(lonely.body.codes).toEqual({ 'fields[accounts]': ['fields_need_expand'] });
    expect(lonely.body.errors['fields[accounts]']).toEqual(['applies to an expanded account: add expand[]=account']);
  });

  it('refuses fieldsets on single reads with the same sentences, and expand where nothing expands', async () => {
    const [account] = accounts.values();
    const one = await t.get(`/v3/accounts/${account.id}?fields[accounts]=id,password&expand[]=account`, key);
    expect(one.status).toBe(422);
    expect(one.body.codes).toEqual({ 'fields[accounts]': ['unknown_resource_field'], expand: ['unknown_expansion'] });
    expect(one.body.errors.expand).toEqual(['is not accepted here: nothing in this resource expands']);
    const empty = await t.get(`/v3/payments/${payments[0].id}?fields[payments]=`, key);
    expect(empty.status).toBe(422);
    expect(empty.body.errors['fields[payments]'][0]).toMatch(/^names \(an empty name\), not a field of payments/);
    const flat = await t.get('/v3/payments?fields=id', key);
    expect(flat.body.codes).toEqual({ fields: ['malformed_fields'] });
  });

  it('is documented: each fields[type] as an array of the type’s field names, expand[] as its names', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
    const parameters = (path: string) => document.paths[path].get.parameters as Row[];
    const fieldsOf = (path: string, name: string) => parameters(path).find((p) => p.name === name);
    expect(fieldsOf('/v3/payments', 'fields[payments]')).toMatchObject({
      in: 'query',
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { enum: payments.length ? keysOf(payments[0]) : [] } },
    });
    expect(fieldsOf('/v3/payments/{payment}', 'expand[]')).toMatchObject({ schema: { type: 'array', items: { enum: ['account'] } } });
    expect(fieldsOf('/v3/accounts/{account}', 'fields[accounts]')?.schema.items.enum).toEqual(keysOf([...accounts.values()][0]));
    expect(fieldsOf('/v3/accounts', 'expand[]')).toBeUndefined();
    expect(fieldsOf('/v3/events', 'fields[events]')?.schema.items.enum).toEqual(['id', 'type', 'created_at', 'data']);
  });
});
