import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiProblem, PaymentsClient, type Payment } from '@payments/client';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { startFaultProxy } from '../support/faultProxy.ts';
import { seed } from '../support/seedHelpers.ts';
import { card } from '../support/cards.ts';

describe('the typed client (@payments/client) against a running server', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let key: string;
  let tenantId: string;
  let accountId: string;
  let client: PaymentsClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'acme', 20, 3000);
    const tenant = await findOrCreateTenant(database.db.kysely, 'acme');
    tenantId = tenant.id;
    key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    server = await startServer({ ...database.env, LOG_LEVEL: 'warn' });
    client = new PaymentsClient({ baseUrl: server.url, apiKey: key });
    const open = await client.accounts.list({ filter: { status: 'active' }, perPage: 1 }).page(1);
    accountId = open.data[0].id;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const charge = (extra: Partial<Parameters<PaymentsClient['payments']['create']>[0]> = {}) => ({
    account_id: accountId,
    amount: 1500,
    currency: 'EUR',
    card: card(),
    ...extra,
  });

  it('walks thousands of payments while others are created: none twice, none of those already there missed', async () => {
    const before = new Set((await database.db.kysely.selectFrom('payments').select('id').where('tenant_id', '=', tenantId).execute()).map((r) => r.id));
    expect(before.size).toBe(3000);
    const seen = new Map<string, number>();
    let walking = true;
    let created = 0;
    const creator = (async () => {
      while (walking && created < 150) {
        await client.payments.create(charge({ reference: `during-walk-${created}` }));
        created++;
      }
    })();
    let pages = 0;
    for await (const page of client.payments.list({ perPage: 100 }).pages()) {
      pages++;
      for (const payment of page.data) seen.set(payment.id, (seen.get(payment.id) ?? 0) + 1);
    }
    walking = false;
    await creator;
    expect(created).toBeGreaterThan(0);
    expect([...seen.values()].filter((n) => n > 1)).toEqual([]);
    expect([...before].filter((id) => !seen.has(id))).toEqual([]);
    expect(pages).toBeGreaterThanOrEqual(30);
  });

  it('iterates items with for await, filtered and sorted, following links.next until null', async () => {
    const amounts: number[] = [];
    for await (const payment of client.payments.list({ filter: { status: 'succeeded', currency: ['EUR', 'USD'] }, sort: '-amount', perPage: 250 })) {
      expect(payment.status).toBe('succeeded');
      expect(['EUR', 'USD']).toContain(payment.currency);
      amounts.push(payment.amount);
    }
    const total = (await client.payments.list({ filter: { status: 'succeeded', currency: ['EUR', 'USD'] }, perPage: 1 }).page(1)).meta.total;
    expect(amounts.length).toBe(total);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
  });

  it('gives one page at a time, and an empty page past the last', async () => {
    const list = client.payments.list({ filter: { amount: { gte: 1000, lt: 50000 } }, perPage: 40 });
    const second = await list.page(2);
    expect(second.meta.current_page).toBe(2);
    expect(second.data.every((p: Payment) => p.amount >= 1000 && p.amount < 50000)).toBe(true);
    const direct = (await (await fetch(second.links.prev!, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: Payment[] };
    expect((await list.page(1)).data).toEqual(direct.data);
    const beyond = await list.page(second.meta.last_page + 1);
    expect(beyond.data).toEqual([]);
    let count = 0;
    for await (const page of client.accounts.payments(accountId, { perPage: 5 }).pages()) count += page.data.length;
    expect(count).toBe((await client.accounts.payments(accountId, { perPage: 1 }).page(1)).meta.total);
  });

  it('creates, changes and deletes accounts; takes, captures, cancels and refunds payments', async () => {
    const account = await client.accounts.create({ name: 'Client Co', email: 'client@example.com', currency: 'GBP', metadata: { crm: '7' } });
    expect(await client.accounts.get(account.id)).toEqual(account);
    expect((await client.accounts.update(account.id, { status: 'suspended' })).status).toBe('suspended');
    await client.accounts.delete(account.id);
    await expect(client.accounts.get(account.id)).rejects.toMatchObject({ status: 404 });

    const held = await client.payments.create(charge({ capture: false }));
    expect(held.status).toBe('authorized');
    expect((await client.payments.capture(held.id, { amount: 1000 })).amount).toBe(1000);
    const refunded = await client.payments.refund(held.id, { amount: 400 });
    expect(refunded).toMatchObject({ status: 'partially_refunded', amount_refunded: 400 });
    const other = await client.payments.create(charge({ capture: false }));
    expect((await client.payments.cancel(other.id)).status).toBe('canceled');
    expect((await client.payments.get(other.id)).status).toBe('canceled');
  });

  it('surfaces errors as ApiProblem with the problem body, without retrying them', async () => {
    const proxy = await startFaultProxy(server.url, () => 'forward');
    const via = new PaymentsClient({ baseUrl: proxy.url, apiKey: key });
    try {
      const notFound = await via.payments.get('pay_nope').catch((e: unknown) => e);
      expect(notFound).toBeInstanceOf(ApiProblem);
      expect(notFound).toMatchObject({ status: 404, type: 'https://docs.payments.example/problems/not-found' });
      expect((notFound as ApiProblem).requestId).toBeTruthy();
      const invalid = (await via.payments.create(charge({ amount: 0 })).catch((e: unknown) => e)) as ApiProblem;
      expect(invalid.status).toBe(422);
      expect(invalid.errors).toHaveProperty('amount');
      expect(invalid.problem.title).toBe('The request has invalid values');
      const badKey = new PaymentsClient({ baseUrl: proxy.url, apiKey: 'apk_wrong' });
      await expect(badKey.accounts.list().page(1)).rejects.toMatchObject({ status: 401 });
      expect(proxy.requests.length).toBe(3);
    } finally {
      await proxy.close();
    }
  });

  it('retries a POST whose answer was lost with the same Idempotency-Key: the server replays, one payment exists', async () => {
    const proxy = await startFaultProxy(server.url, (n) => (n === 1 ? 'forward-then-503' : 'forward'));
    const waits: number[] = [];
    const via = new PaymentsClient({ baseUrl: proxy.url, apiKey: key, sleep: async (ms) => void waits.push(ms) });
    try {
      const payment = await via.payments.create(charge({ reference: 'lost-answer-1' }));
      expect(proxy.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
      expect(proxy.requests[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(proxy.requests[1].idempotencyKey).toBe(proxy.requests[0].idempotencyKey);
      expect(waits).toHaveLength(1);
      const stored = await database.db.kysely.selectFrom('payments').select('id').where('reference', '=', 'lost-answer-1').execute();
      expect(stored.map((r) => r.id)).toEqual([payment.id]);
      // two calls are two keys: two payments
      await via.payments.create(charge({ reference: 'lost-answer-1' }));
      expect(new Set(proxy.requests.map((r) => r.idempotencyKey)).size).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('waits as long as Retry-After says on 429 and 503, then succeeds', async () => {
    const proxy = await startFaultProxy(server.url, (n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '2' } } : n === 2 ? { status: 503, headers: { 'retry-after': '1' } } : 'forward',
    );
    const waits: number[] = [];
    const via = new PaymentsClient({ baseUrl: proxy.url, apiKey: key, sleep: async (ms) => void waits.push(ms) });
    try {
      const page = await via.accounts.list({ perPage: 3 }).page(1);
      expect(page.data).toHaveLength(3);
      expect(waits).toEqual([2000, 1000]);
    } finally {
      await proxy.close();
    }
  });

  it('gives up after a bounded number of attempts, backing off when there is no Retry-After', async () => {
    const proxy = await startFaultProxy(server.url, () => ({ status: 503 }));
    const waits: number[] = [];
    const via = new PaymentsClient({ baseUrl: proxy.url, apiKey: key, retry: { attempts: 3, baseDelayMs: 100 }, sleep: async (ms) => void waits.push(ms) });
    try {
      await expect(via.payments.create(charge())).rejects.toMatchObject({ name: 'ApiProblem', status: 503 });
      expect(proxy.requests).toHaveLength(3);
      expect(new Set(proxy.requests.map((r) => r.idempotencyKey)).size).toBe(1);
      expect(waits).toHaveLength(2);
      expect(waits[0]).toBeGreaterThanOrEqual(50);
      expect(waits[0]).toBeLessThanOrEqual(100);
      expect(waits[1]).toBeGreaterThanOrEqual(100);
      expect(waits[1]).toBeLessThanOrEqual(200);
    } finally {
      await proxy.close();
    }
  });

  it('uses the Idempotency-Key given by the caller', async () => {
    const first = await client.payments.create(charge({ reference: 'own-key' }), { idempotencyKey: 'order-own-key-1' });
    const again = await client.payments.create(charge({ reference: 'own-key' }), { idempotencyKey: 'order-own-key-1' });
    expect(again.id).toBe(first.id);
  });
});
