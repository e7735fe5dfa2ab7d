import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { card } from '../support/cards.ts';
import { send } from '../support/loadDriver.ts';
import { seed } from '../support/seedHelpers.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('several instances on one database', () => {
  let database: TestDatabase;
  let key: string;
  let accounts: string[];
  /** a and b share rate-limit counters through Redis; c has only its own memory. */
  let a: ServerProcess;
  let b: ServerProcess;
  let c: ServerProcess;
  const agent = new Agent({ keepAlive: true });

  const get = async (server: ServerProcess, path: string) => {
    const o = await send(server.url, { method: 'GET', path, key }, agent);
    if (o.status !== 200) throw new Error(`${path}: ${o.status ?? o.error} ${o.body}`);
    return { body: JSON.parse(o.body!), strategy: o.headers!['x-page-strategy'] };
  };
  const createOn = (server: ServerProcess, reference: string, idempotencyKey = `k-${reference}`) =>
    send(
      server.url,
      {
        method: 'POST',
        path: '/v3/payments',
        key,
        headers: { 'idempotency-key': idempotencyKey },
        body: { account_id: accounts[reference.length % accounts.length], amount: 4321, currency: 'GBP', reference, card: card() },
      },
      agent,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'multi', 6, 1200);
    const tenant = await findOrCreateTenant(database.db.kysely, 'multi');
    key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    accounts = (await database.db.kysely.selectFrom('accounts').select('id').where('status', '=', 'active').execute()).map((r) => r.id);
    [a, b, c] = await Promise.all([
      startServer({ ...database.env, REDIS_URL, LOG_LEVEL: 'warn' }),
      startServer({ ...database.env, REDIS_URL, LOG_LEVEL: 'warn' }),
      startServer({ ...database.env, LOG_LEVEL: 'warn' }),
    ]);
  }, 60_000);
  afterAll(async () => {
    agent.destroy();
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
    await database.drop();
  }, 30_000);

  it('agree on totals and lists after writes through either of them', async () => {
    for (let i = 0; i < 20; i++) expect((await createOn(i % 2 ? a : b, `multi-w-${i}`)).status).toBe(201);
    const path = '/v3/payments?per_page=5000&sort=-amount&filter[currency]=GBP';
    const [onA, onB, onC] = await Promise.all([get(a, path), get(b, path), get(c, path)]);
    expect(onA.body.meta.total).toBe(onB.body.meta.total);
    expect(onA.body.data).toEqual(onB.body.data);
    expect(onA.body.data).toEqual(onC.body.data);
    expect(onA.body.data.filter((p: { reference: string }) => p.reference?.startsWith('multi-w-'))).toHaveLength(20);
    const totals = await Promise.all([a, b, c].map((s) => get(s, '/v3/payments?per_page=1')));
    expect(new Set(totals.map((t) => t.body.meta.total)).size).toBe(1);
    expect(totals[0].body.meta.total).toBe(1220);
  });

  it('walk a list exactly by links.next hopping between instances, with nothing shared between them but the database', async () => {
    const all = (await get(a, '/v3/payments?per_page=5000&sort=amount')).body.data.map((p: { id: string }) => p.id);
    for (const [pair, perPage] of [
      [[a, b], 97],
      [[a, c], 89],
    ] as const) {
      const seen: string[] = [];
      let next: string | null = `/v3/payments?per_page=${perPage}&sort=amount`;
      for (let page = 0; next; page++) {
        const u: URL = new URL(next, 'http://x');
        const { body } = await get(pair[page % 2], u.pathname + u.search);
        seen.push(...body.data.map((p: { id: string }) => p.id));
        next = body.links.next;
      }
      expect(seen).toEqual(all);
    }
  });

  it('take writes through two instances at once without telling either client the database is busy', async () => {
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => createOn(i % 2 ? a : b, `multi-c-${i}`)));
    expect(outcomes.map((o) => o.status).filter((status) => status !== 201)).toEqual([]);
  });

  it('run one request per Idempotency-Key even when both instances get it at once, and replay it from the other', async () => {
    for (let i = 0; i < 8; i++) {
      const reference = `multi-idem-${i}`;
      const [first, second] = await Promise.all([createOn(a, reference, `same-${i}`), createOn(b, reference, `same-${i}`)]);
      const statuses = [first.status, second.status].sort();
      // One creates; the other replays it or is told the first is still running.
      expect([
        [201, 201],
        [201, 409],
      ]).toContainEqual(statuses);
      const created = [first, second].find((o) => o.status === 201 && !o.headers!['idempotent-replayed'])!;
      expect(created).toBeDefined();
      const id = JSON.parse(created.body!).data.id;
      const replay = await createOn(created === first ? b : a, reference, `same-${i}`);
      expect(replay.status).toBe(201);
      expect(replay.headers!['idempotent-replayed']).toBe('true');
      expect(JSON.parse(replay.body!).data.id).toBe(id);
    }
    const rows = await database.db.kysely.selectFrom('payments').select(['reference']).where('reference', 'like', 'multi-idem-%').execute();
    expect(rows.map((r) => r.reference).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `multi-idem-${i}`).sort());
  });
});
