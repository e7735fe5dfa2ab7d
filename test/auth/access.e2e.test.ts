import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';
import { card, CARDS } from '../support/cards.ts';
import type { TestDatabase } from '../support/testDatabase.ts';

describe('access: API keys, scopes and tenant isolation (API.md §6)', () => {
  let t: TestContext;
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };
  let bobAccount: string;
  let bobPayment: string;
  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.tenant('alice');
    bob = await t.tenant('bob');
    await seed(t.database.db, 'alice', 5, 40);
    await seed(t.database.db, 'bob', 7, 70);
    const kysely = t.database.db.kysely;
    bobAccount = (await kysely.selectFrom('accounts').select('id').where('tenant_id', '=', bob.id).executeTakeFirstOrThrow()).id;
    bobPayment = (await kysely.selectFrom('payments').select('id').where('tenant_id', '=', bob.id).executeTakeFirstOrThrow()).id;
  });
  afterAll(() => t.close());

  const endpoints = [
    '/v3/accounts',
    '/v3/payments',
    '/v3/accounts/acc_01ARZ3NDEKTSV4RRFFQ69G5FAV',
    '/v3/payments/pay_01ARZ3NDEKTSV4RRFFQ69G5FAV',
    '/v3/accounts/acc_01ARZ3NDEKTSV4RRFFQ69G5FAV/payments',
  ];

  it.each(endpoints)('%s without a key is 401 with a Bearer challenge', async (url) => {
    const response = await t.app.inject({ url });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it.each([['Bearer apk_not-a-real-key'], ['Basic YWxhZGRpbjpvcGVuc2VzYW1l'], ['Bearer'], ['apk_xyz'], [`Bearer ${'a'.repeat(5000)}`]])(
    'Authorization: %s is 401',
    async (authorization) => {
      expect((await t.app.inject({ url: '/v3/payments', headers: { authorization } })).statusCode).toBe(401);
    },
  );

  it('authenticates before validating, so a stranger learns nothing about parameters', async () => {
    expect((await t.app.inject({ url: '/v3/payments?page=0' })).statusCode).toBe(401);
  });

  it('a revoked key no longer works', async () => {
    const carol = await t.tenant('carol');
    await t.database.db.kysely.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('tenant_id', '=', carol.id).execute();
    expect((await t.get('/v3/payments', carol.key)).status).toBe(401);
  });

  it('stores only a hash of each key', async () => {
    const rows = await t.database.db.kysely.selectFrom('api_keys').selectAll().execute();
    for (const row of rows) {
      expect(JSON.stringify(row)).not.toContain(alice.key);
      expect(JSON.stringify(row)).not.toContain(bob.key);
    }
  });

  it('counts and lists only the caller’s own records', async () => {
    expect((await t.get('/v3/payments', alice.key)).body.meta.total).toBe(40);
    expect((await t.get('/v3/accounts', alice.key)).body.meta.total).toBe(5);
    expect((await t.get('/v3/payments', bob.key)).body.meta.total).toBe(70);
    const all = (await t.get('/v3/payments?per_page=5000', alice.key)).body.data;
    expect(all.every((p: { id: string }) => p.id !== bobPayment)).toBe(true);
  });

  it('answers another tenant’s records with 404, exactly like unknown ones', async () => {
    for (const url of [`/v3/accounts/${bobAccount}`, `/v3/payments/${bobPayment}`, `/v3/accounts/${bobAccount}/payments`]) {
      const response = await t.get(url, alice.key);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ status: 404, title: 'Not found' });
      expect((await t.get(url, bob.key)).status).toBe(200);
    }
  });

  it('does not let a filter reach into another tenant', async () => {
    const { body } = await t.get(`/v3/payments?filter[account_id]=${bobAccount}`, alice.key);
    expect(body.meta.total).toBe(0);
  });

  it.each(['nope', 'acc_', 'pay_01ARZ3NDEKTSV4RRFFQ69G5FAV', "acc_' or 1=1 --", 'acc_%00', 'x'.repeat(300)])(
    'a malformed or unknown account id %s is 404',
    async (id) => {
      const response = await t.get(`/v3/accounts/${encodeURIComponent(id)}`, alice.key);
      expect(response.status).toBe(404);
    },
  );

  it('a read key reads; write routes will require write (403 problem otherwise)', async () => {
    const reader = await t.tenant('alice', ['read']);
    expect((await t.get('/v3/payments', reader.key)).status).toBe(200);
  });
});

/** Everything a tenant has, as stored: what must not change when someone else tries. */
async function snapshot(database: TestDatabase, tenantId: string) {
  const kysely = database.db.kysely;
  return JSON.stringify([
    await kysely.selectFrom('accounts').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute(),
    await kysely.selectFrom('payments').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute(),
    await kysely.selectFrom('idempotency_keys').select(['key', 'request_hash', 'response_status']).where('tenant_id', '=', tenantId).orderBy('key').execute(),
  ]);
}

const UNKNOWN = { acc: 'acc_01ARZ3NDEKTSV4RRFFQ69G5FAV', pay: 'pay_01ARZ3NDEKTSV4RRFFQ69G5FAV' };

/** Every endpoint and method that names a record, with a body that would succeed on one's own. */
function attacksOn(kind: 'acc' | 'pay', id: string): Array<{ method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: unknown }> {
  if (kind === 'acc') {
    return [
      { method: 'GET', url: `/v3/accounts/${id}` },
      { method: 'GET', url: `/v3/accounts/${id}/payments` },
      { method: 'GET', url: `/v3/accounts/${id}/payments?filter[status]=succeeded&sort=-amount` },
      { method: 'PATCH', url: `/v3/accounts/${id}`, payload: { name: 'taken over' } },
      { method: 'PATCH', url: `/v3/accounts/${id}`, payload: { status: 'closed' } },
      { method: 'PATCH', url: `/v3/accounts/${id}`, payload: { status: 'active', metadata: { owner: 'mallory' } } },
      { method: 'DELETE', url: `/v3/accounts/${id}` },
    ];
  }
  return [
    { method: 'GET', url: `/v3/payments/${id}` },
    { method: 'POST', url: `/v3/payments/${id}/capture` },
    { method: 'POST', url: `/v3/payments/${id}/capture`, payload: { amount: 1 } },
    { method: 'POST', url: `/v3/payments/${id}/cancel` },
    { method: 'POST', url: `/v3/payments/${id}/refunds` },
    { method: 'POST', url: `/v3/payments/${id}/refunds`, payload: { amount: 1 } },
  ];
}

describe('authorization (OWASP API1, BOLA): another tenant’s records, in every state, through every endpoint and method', () => {
  let t: TestContext;
  let mallory: { id: string; key: string };
  let victim: { id: string; key: string };
  let reader: { id: string; key: string };
  const accounts: Record<string, string> = {};
  const payments: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp();
    mallory = await t.tenant('mallory');
    victim = await t.tenant('victim');
    reader = await t.tenant('victim', ['read']);
    await seed(t.database.db, 'victim', 3, 20, 'bola');
    const create = async (body: object) => (await t.send('POST', '/v3/accounts', victim.key, body)).body.data.id as string;
    accounts.active = await create({ name: 'Active', email: 'a@example.com', currency: 'USD' });
    accounts.suspended = await create({ name: 'Suspended', email: 's@example.com', currency: 'USD', status: 'suspended' });
    accounts.empty = await create({ name: 'Empty', email: 'e@example.com', currency: 'EUR' });
    accounts.closed = await create({ name: 'Closed', email: 'c@example.com', currency: 'USD' });
    await t.send('PATCH', `/v3/accounts/${accounts.closed}`, victim.key, { status: 'closed' });
    const pay = async (capture: boolean, number: string = CARDS.visa) =>
      (await t.send('POST', '/v3/payments', victim.key, { account_id: accounts.active, amount: 1000, currency: 'USD', capture, card: card(number) })).body.data
        .id as string;
    payments.succeeded = await pay(true);
    payments.authorized = await pay(false);
    payments.failed = await pay(true, CARDS.declined);
    payments.canceled = await pay(false);
    await t.send('POST', `/v3/payments/${payments.canceled}/cancel`, victim.key);
    payments.captured = await pay(false);
    await t.send('POST', `/v3/payments/${payments.captured}/capture`, victim.key, { amount: 600 });
    payments.partiallyRefunded = await pay(true);
    await t.send('POST', `/v3/payments/${payments.partiallyRefunded}/refunds`, victim.key, { amount: 100 });
    payments.refunded = await pay(true);
    await t.send('POST', `/v3/payments/${payments.refunded}/refunds`, victim.key);
    // Seeded rows add the one state the API cannot make on demand (pending), and some of every other.
    const seeded = await t.database.db.kysely
      .selectFrom('payments')
      .select(['id', 'status'])
      .where('tenant_id', '=', victim.id)
      .where('id', 'not in', Object.values(payments))
      .execute();
    for (const row of seeded) payments[`seeded ${row.status}`] ??= row.id;
    const states = await t.database.db.kysely.selectFrom('payments').select('status').distinct().where('id', 'in', Object.values(payments)).execute();
    expect(states.map((s) => s.status).sort()).toEqual(['authorized', 'canceled', 'failed', 'partially_refunded', 'pending', 'refunded', 'succeeded']);
  });
  afterAll(() => t.close());

  const send = (
    key: string | undefined,
    attack: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: unknown },
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method: attack.method,
      url: attack.url,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      ...(attack.payload === undefined ? {} : { payload: attack.payload as object }),
    });

  it('every account and payment of another tenant is a 404, answered exactly like an unknown one, and nothing changes', async () => {
    const before = await snapshot(t.database, victim.id);
    const targets = [
      ...Object.entries(accounts).map(([state, id]) => ['acc', state, id] as const),
      ...Object.entries(payments).map(([state, id]) => ['pay', state, id] as const),
    ];
    let tried = 0;
    for (const [kind, state, id] of targets) {
      for (const attack of attacksOn(kind, id)) {
        for (const headers of [{}, { 'idempotency-key': `bola-${tried}` }] as Array<Record<string, string>>) {
          if (attack.method === 'GET' && 'idempotency-key' in headers) continue;
          const response = await send(mallory.key, attack, headers);
          expect(response.statusCode, `${state}: ${attack.method} ${attack.url}`).toBe(404);
          // No oracle: the same answer as for an id that exists nowhere.
          const fresh: Record<string, string> = headers['idempotency-key'] ? { 'idempotency-key': `${headers['idempotency-key']}-unknown` } : {};
          const unknown = await send(mallory.key, { ...attack, url: attack.url.replace(id, UNKNOWN[kind]) }, fresh);
          expect(response.body.replaceAll(id, UNKNOWN[kind])).toBe(unknown.body);
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThan(100);
    expect(await snapshot(t.database, victim.id)).toBe(before);
  });

  it('another tenant’s account cannot be paid into, named in a filter, or counted', async () => {
    const before = await snapshot(t.database, victim.id);
    for (const id of Object.values(accounts)) {
      const body = { account_id: id, amount: 100, currency: 'USD', card: card() };
      const response = await t.send('POST', '/v3/payments', mallory.key, body);
      const unknown = await t.send('POST', '/v3/payments', mallory.key, { ...body, account_id: UNKNOWN.acc });
      expect(response.status).toBe(422);
      expect(response.body).toEqual(unknown.body);
      const filtered = await t.get(`/v3/payments?filter[account_id]=${id}`, mallory.key);
      expect(filtered.body.meta.total).toBe(0);
    }
    expect((await t.get('/v3/accounts', mallory.key)).body.meta.total).toBe(0);
    expect(await snapshot(t.database, victim.id)).toBe(before);
  });

  it('a read key of the same tenant cannot write: 403 on every write, nothing changes', async () => {
    const before = await snapshot(t.database, victim.id);
    const writes = [
      { method: 'POST' as const, url: '/v3/accounts', payload: { name: 'R', email: 'r@example.com', currency: 'USD' } },
      { method: 'POST' as const, url: '/v3/payments', payload: { account_id: accounts.active, amount: 100, currency: 'USD', card: card() } },
      ...Object.values(accounts).flatMap((id) => attacksOn('acc', id)),
      ...Object.values(payments).flatMap((id) => attacksOn('pay', id)),
    ].filter((w) => w.method !== 'GET');
    for (const write of writes) {
      const response = await send(reader.key, write);
      expect(response.statusCode, `${write.method} ${write.url}`).toBe(403);
      expect(response.json()).toMatchObject({ status: 403, title: 'Forbidden' });
    }
    for (const read of Object.values(payments).map((id) => ({ method: 'GET' as const, url: `/v3/payments/${id}` }))) {
      expect((await send(reader.key, read)).statusCode).toBe(200);
    }
    expect(await snapshot(t.database, victim.id)).toBe(before);
  });

  it('no key is a 401 on every endpoint and method, and nothing changes', async () => {
    const before = await snapshot(t.database, victim.id);
    const all = [
      { method: 'GET' as const, url: '/v3/accounts' },
      { method: 'GET' as const, url: '/v3/payments' },
      { method: 'POST' as const, url: '/v3/accounts', payload: { name: 'R', email: 'r@example.com', currency: 'USD' } },
      { method: 'POST' as const, url: '/v3/payments', payload: { account_id: accounts.active, amount: 100, currency: 'USD', card: card() } },
      ...Object.values(accounts).flatMap((id) => attacksOn('acc', id)),
      ...Object.values(payments).flatMap((id) => attacksOn('pay', id)),
    ];
    for (const request of all) {
      const response = await send(undefined, request);
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expect(await snapshot(t.database, victim.id)).toBe(before);
  });
});
