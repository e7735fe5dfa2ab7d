import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../support/testDatabase.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { eventually, startReceiver } from '../support/webhookReceiver.ts';

const SENDER_ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '100', LOG_LEVEL: 'warn' };

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

// Two `serve` processes on one PostgreSQL schema, each with its own sender: what "every instance
// claims with SKIP LOCKED" means in production. (SQLite is one file for one process.)
describe.runIf(TEST_DIALECT === 'postgres')('two server processes on one PostgreSQL, both sending', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  const servers: ServerProcess[] = [];
  const merchants: Array<{ key: string; receiver: Receiver }> = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    servers.push(await startServer({ ...database.env, ...SENDER_ENV }), await startServer({ ...database.env, ...SENDER_ENV }));
    for (const name of ['north', 'south']) {
      const tenant = await findOrCreateTenant(database.db.kysely, name);
      const key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
      const receiver = await startReceiver();
      const created = await call(servers[0], key, 'POST', '/v3/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
      receiver.secrets.push(created.data.secret);
      merchants.push({ key, receiver });
    }
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
    for (const m of merchants) await m.receiver.close();
    await database?.drop();
  });

  async function call(server: ServerProcess, key: string, method: string, path: string, body?: object) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as { data: any };
  }
  /** Accounts created and changed through the given servers in turn. */
  async function changes(count: number, through = servers) {
    for (let i = 0; i < count; i++)
      for (const [m, merchant] of merchants.entries()) {
        const server = through[(i + m) % through.length];
        const account = (await call(server, merchant.key, 'POST', '/v3/accounts', { name: `N${i}`, email: 'n@example.com', currency: 'EUR' })).data;
        await call(through[(i + m + 1) % through.length], merchant.key, 'PATCH', `/v3/accounts/${account.id}`, { name: `N${i}'` });
      }
  }
  async function eventsOf(key: string): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const body = (await call(servers[1], key, 'GET', `/v3/events?per_page=100&page=${page}`)) as { data: Array<{ id: string }> };
      ids.push(...body.data.map((e) => e.id));
      if (body.data.length < 100) return ids;
    }
  }
  async function expectEachOnceInOrder() {
    for (const { key, receiver } of merchants) {
      const events = await eventsOf(key);
      await eventually(() => receiver.received.length >= events.length, 30_000);
      await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
      expect(receiver.rejected).toEqual([]);
      expect(receiver.received.map((r) => r.id)).toEqual(events);
      expect(receiver.concurrency.most).toBe(1);
    }
  }

  it('delivers every event to each endpoint exactly once, in order, one at a time', async () => {
    for (const { receiver } of merchants) receiver.answerWith(() => ({ status: 204, delayMs: 5 }));
    await changes(15);
    await expectEachOnceInOrder();
    // One delivery row per event and endpoint, each succeeded at its first attempt.
    const rows = await database.db.kysely.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
    expect(rows).toHaveLength(merchants.length * 30);
    expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
  });

  it('loses nothing and repeats nothing acknowledged when one process gets SIGTERM mid-delivery and starts again', async () => {
    for (const { receiver } of merchants) receiver.answerWith(() => ({ status: 200, delayMs: 150 }));
    const before = merchants.map((m) => m.receiver.attempted.length);
    await changes(5);
    // Stopped while both receivers are answering: the stopped process most likely holds one of them.
    await eventually(() => merchants.every((m, i) => m.receiver.attempted.length > before[i] + 1 && m.receiver.concurrency.now > 0));
    expect(await servers[0].stop()).toBe(0);
    await changes(2, [servers[1]]); // written while one process is down: the other sends them
    servers[0] = await startServer({ ...database.env, ...SENDER_ENV });
    await changes(2);
    await expectEachOnceInOrder();
  });
});
