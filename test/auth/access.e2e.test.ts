import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';

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

  const endpoints = ['/v3/accounts', '/v3/payments', '/v3/accounts/acc_01ARZ3NDEKTSV4RRFFQ69G5FAV', '/v3/payments/pay_01ARZ3NDEKTSV4RRFFQ69G5FAV', '/v3/accounts/acc_01ARZ3NDEKTSV4RRFFQ69G5FAV/payments'];

  it.each(endpoints)('%s without a key is 401 with a Bearer challenge', async (url) => {
    const response = await t.app.inject({ url });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it.each([
    ['Bearer apk_not-a-real-key'],
    ['Basic YWxhZGRpbjpvcGVuc2VzYW1l'],
    ['Bearer'],
    ['apk_xyz'],
    [`Bearer ${'a'.repeat(5000)}`],
  ])('Authorization: %s is 401', async (authorization) => {
    expect((await t.app.inject({ url: '/v3/payments', headers: { authorization } })).statusCode).toBe(401);
  });

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
