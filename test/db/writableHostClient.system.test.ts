// The failover drill: runs once (system project), on a primary and a standby of its own that it
// crashes and promotes; the machine's shared server is never touched.
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';
import { NoWritableHost } from '../../src/db/databaseErrors.ts';
import { databaseReadiness } from '../../src/db/readiness.ts';
import { createOwnPostgresDatabase } from '../support/ownPostgresDatabase.ts';
import { startHangingUpPooler } from '../support/hangingUpPooler.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { card } from '../support/cards.ts';
import { send, type Outcome } from '../support/loadDriver.ts';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../support/replicatedPostgres.ts';
import { seed } from '../support/seedHelpers.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';

/** From the promotion to the first write acknowledged again: "within seconds". */
const BACK_WITHIN_MS = 5_000;
const WRITERS = 4;

interface Write {
  reference: string;
  attempts: Outcome[];
  /** The 201's payment, once acknowledged. */
  payment?: { id: string; reference: string };
}

describe('failover without a restart: DATABASE_URL naming a primary and its synchronous standby', () => {
  let cluster: ReplicatedPostgres;
  let server: ServerProcess;
  let key: string;
  let tenantId: string;
  let accounts: string[];

  beforeAll(async () => {
    cluster = await startReplicatedPostgres();
    const db = openDatabase(cluster.primary.url, { poolMax: 2 });
    try {
      await migrateToLatest(db.kysely, db.dialect);
      await seed(db, 'failover', 3, 20);
      const tenant = await findOrCreateTenant(db.kysely, 'failover');
      tenantId = tenant.id;
      key = await createApiKey(db.kysely, tenant.id, ['read', 'write']);
      accounts = (await db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenant.id).where('status', '=', 'active').execute()).map(
        (r) => r.id,
      );
    } finally {
      await db.close();
    }
    server = await startServer({ DATABASE_URL: cluster.url, PG_CONNECT_TIMEOUT_MS: '1000', READY_TIMEOUT_MS: '1000', PG_POOL_MAX: '4', LOG_LEVEL: 'info' });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  }, 30_000);

  it('starts naming both hosts, and after the primary crashes is 503 (not 500) until the standby is promoted, then writes again within seconds; every acknowledged payment exists once', async () => {
    for (const begun = performance.now(); !server.output().includes('"listening on') && performance.now() - begun < 5_000; ) await sleep(50);
    expect(server.output()).toContain(`PostgreSQL postgres on 127.0.0.1:${cluster.primary.port} or 127.0.0.1:${cluster.standby.port}, whichever takes writes`);
    const agent = new Agent({ keepAlive: true });
    const post = (reference: string) =>
      send(
        server.url,
        {
          method: 'POST',
          path: '/v3/payments',
          key,
          headers: { 'idempotency-key': `key-${reference}` },
          body: {
            account_id: accounts[reference.length % accounts.length],
            amount: 100 + reference.length,
            currency: 'EUR',
            reference,
            capture: true,
            card: card(),
          },
        },
        agent,
      );

    // Writers: each sends a payment and retries it with the same key until it is acknowledged.
    const writes: Write[] = [];
    let stopping = false;
    const writer = async (w: number) => {
      for (let i = 0; !stopping; i++) {
        const write: Write = { reference: `fo-${w}-${i}`, attempts: [] };
        writes.push(write);
        for (let tries = 0; !write.payment; tries++) {
          const outcome = await post(write.reference);
          write.attempts.push(outcome);
          if (outcome.status === 201 || outcome.status === 200) write.payment = JSON.parse(outcome.body!).data;
          else if (tries > 400) throw new Error(`${write.reference} never acknowledged: ${outcome.status} ${outcome.body ?? outcome.error}`);
          else await sleep(50);
        }
      }
    };
    const running = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    const acknowledged = () => writes.filter((w) => w.payment).length;
    for (const begun = performance.now(); acknowledged() < 30 && performance.now() - begun < 20_000; ) await sleep(50);
    const beforeCrash = acknowledged();
    expect(beforeCrash).toBeGreaterThanOrEqual(30);

    await cluster.primary.crash();
    const crashedAt = performance.now();
    // Only the standby is up, read-only: not ready, and a write is a 503 problem (never a 500).
    await sleep(300);
    const ready = await send(server.url, { method: 'GET', path: '/ready', key }, new Agent());
    const write = await post('fo-while-read-only');
    expect(ready.status).toBe(503);
    expect(write.status, write.body).toBe(503);
    expect(write.headers!['content-type']).toMatch(/^application\/problem\+json/);
    expect(write.headers!['retry-after']).toBeDefined();
    await sleep(700);

    const promotionBegunAt = performance.now();
    await cluster.standby.promote();
    const promotedAt = performance.now();
    const firstBack = () =>
      Math.min(...writes.flatMap((w) => w.attempts.filter((o) => o.startedAt > promotedAt && (o.status === 201 || o.status === 200)).map((o) => o.endedAt)));
    for (; !Number.isFinite(firstBack()) && performance.now() - promotedAt < 30_000; ) await sleep(50);
    const backAfterMs = firstBack() - promotedAt;
    const readyAfter = await send(server.url, { method: 'GET', path: '/ready', key }, new Agent());
    await sleep(1000);
    stopping = true;
    await running;
    // The one sent while read-only, retried with its key now.
    const retried = await post('fo-while-read-only');
    expect(retried.status, retried.body).toBe(201);

    const attempts = writes.flatMap((w) => w.attempts);
    const statuses = new Map<string, number>();
    for (const o of attempts) statuses.set(String(o.status ?? o.error), (statuses.get(String(o.status ?? o.error)) ?? 0) + 1);
    console.log(
      `failover drill: ${beforeCrash} acknowledged before the crash, ${acknowledged()} in all; writes back ${Math.round(backAfterMs)} ms after the promotion completed (pg_ctl promote took ${Math.round(promotedAt - promotionBegunAt)} ms; the crash was ${Math.round(promotedAt - crashedAt)} ms before, 1 s of it read-only on purpose); answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(server.child.exitCode, server.output().slice(-2000)).toBeNull();
    expect(backAfterMs).toBeLessThan(BACK_WITHIN_MS);
    expect(readyAfter.status).toBe(200);
    // Only answers a retry is right for, never a 500 nor a dropped connection.
    expect([...statuses.keys()].filter((s) => !['200', '201', '409', '503'].includes(s))).toEqual([]);

    // Every acknowledged payment is on the new primary exactly once; the totals agree with the rows.
    const db = openDatabase(cluster.standby.url, { poolMax: 2 });
    try {
      const rows = await db.kysely.selectFrom('payments').select(['id', 'reference']).where('tenant_id', '=', tenantId).execute();
      const perReference = new Map<string, number>();
      for (const r of rows) perReference.set(r.reference ?? '', (perReference.get(r.reference ?? '') ?? 0) + 1);
      const byId = new Map(rows.map((r) => [r.id, r.reference]));
      const payments = [...writes.map((w) => w.payment), JSON.parse(retried.body!).data];
      const lost = payments.filter((p) => byId.get(p.id) !== p.reference);
      expect(lost).toEqual([]);
      expect(payments.map((p) => perReference.get(p.reference)).filter((n) => n !== 1)).toEqual([]);
      expect([...perReference.entries()].filter(([reference, n]) => reference.startsWith('fo-') && n !== 1)).toEqual([]);
      const list = await send(server.url, { method: 'GET', path: '/v3/payments?per_page=1', key }, agent);
      expect(list.status).toBe(200);
      expect(JSON.parse(list.body!).meta.total).toBe(rows.length);
    } finally {
      await db.close();
      agent.destroy();
    }
  }, 120_000);
});

describe('several hosts, on the shared server (one of them a port nobody listens on)', () => {
  it.each(['none', 'session', 'transaction'] as const)('PG_POOLER=%s: connects past the unreachable host, with every session setting', async (pooler) => {
    const own = await createOwnPostgresDatabase('hosts');
    const { host } = new URL(own.url);
    const db = openDatabase(own.url.replace(host, `127.0.0.1:1,${host}`), { pooler, poolMax: 2, statementTimeoutMs: 1234 });
    try {
      await sql`create table notes (n int)`.execute(db.kysely);
      await db.kysely.transaction().execute(async (trx) => {
        await sql`insert into notes values (1)`.execute(trx);
      });
      const { rows } = await sql<{ tz: string; timeout: string; n: number }>`
        select current_setting('TimeZone') as tz, current_setting('statement_timeout') as timeout, (select count(*) from notes)::int as n`.execute(db.kysely);
      expect(rows[0]).toEqual({ tz: 'UTC', timeout: '1234ms', n: 1 });
      expect(await databaseReadiness(db)).toBe('ready');
    } finally {
      await db.close();
      await own.drop();
    }
  });

  it('PG_POOLER=transaction: passes over a pooler that hangs up when asked whether it takes writes (its server gone), and lives on', async () => {
    const pooler = await startHangingUpPooler();
    const own = await createOwnPostgresDatabase('hangup_hosts');
    const { host } = new URL(own.url);
    const db = openDatabase(own.url.replace(host, `127.0.0.1:${pooler.port},${host}`), { pooler: 'transaction', poolMax: 2 });
    try {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db.kysely);
      expect(rows).toEqual([{ one: 1 }]);
      expect(pooler.hungUp()).toBeGreaterThanOrEqual(1);
    } finally {
      await db.close();
      await own.drop();
      await pooler.close();
    }
  });

  it('refuses a read-only host: no connection, a NoWritableHost naming each host, and not ready', async () => {
    const own = await createOwnPostgresDatabase('ro_hosts');
    await own.admin(`alter database ${own.name} set default_transaction_read_only = on`);
    const { host } = new URL(own.url);
    const db = openDatabase(own.url.replace(host, `${host},127.0.0.1:1`), { poolMax: 2 });
    try {
      const error = await sql`select 1`.execute(db.kysely).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NoWritableHost);
      expect((error as Error).message).toBe(`no writable host: ${host} read-only (a standby, or set read-only), 127.0.0.1:1 unreachable (ECONNREFUSED)`);
      expect(await databaseReadiness(db)).toBe('not-answering');
    } finally {
      await db.close();
      await own.drop();
    }
  });
});
