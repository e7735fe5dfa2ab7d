// Read replicas with read-your-writes across instances: a primary and a streaming standby of
// their own (loopback ports), two server processes reading from the standby; the machine's shared
// server is never touched.
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { card } from '../support/cards.ts';
import { send, type Outcome } from '../support/loadDriver.ts';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../support/replicatedPostgres.ts';
import { seed } from '../support/seedHelpers.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';

/** Which database answered a read, from its Server-Timing (`db;desc="replica 127.0.0.1:5433"`). */
function answeredBy(outcome: Outcome): string {
  const timing = String(outcome.headers?.['server-timing'] ?? '');
  return /db;desc="([^"]+)"/.exec(timing)?.[1] ?? `(none: ${timing})`;
}

/** `db_reads_total` of one instance, by target. */
async function readsByTarget(server: ServerProcess, agent: Agent): Promise<Record<string, number>> {
  const metrics = await send(server.url, { method: 'GET', path: '/metrics', key: '' }, agent);
  const counts: Record<string, number> = {};
  for (const [, target, value] of (metrics.body ?? '').matchAll(/^db_reads_total\{target="([^"]+)",reason="[^"]+"\} (\d+)/gm)) {
    counts[target as string] = (counts[target as string] ?? 0) + Number(value);
  }
  return counts;
}

describe('read replicas: DATABASE_REPLICA_URLS naming a streaming standby, two instances', () => {
  let cluster: ReplicatedPostgres;
  let instances: ServerProcess[];
  let standby: pg.Client;
  let writerKey: string;
  let bystanderKey: string;
  let accounts: string[];
  const agent = new Agent({ keepAlive: true });
  let replica: string;

  beforeAll(async () => {
    cluster = await startReplicatedPostgres();
    replica = `replica 127.0.0.1:${cluster.standby.port}`;
    const db = openDatabase(cluster.primary.url, { poolMax: 2 });
    try {
      await migrateToLatest(db.kysely, db.dialect);
      await seed(db, 'writer', 3, 20);
      await seed(db, 'bystander', 2, 10);
      const writer = await findOrCreateTenant(db.kysely, 'writer');
      writerKey = await createApiKey(db.kysely, writer.id, ['read', 'write']);
      bystanderKey = await createApiKey(db.kysely, (await findOrCreateTenant(db.kysely, 'bystander')).id, ['read']);
      accounts = (await db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', writer.id).where('status', '=', 'active').execute()).map(
        (r) => r.id,
      );
    } finally {
      await db.close();
    }
    const env = {
      DATABASE_URL: cluster.url,
      DATABASE_REPLICA_URLS: cluster.standby.url,
      // Far above anything here: what keeps reads off a paused replica must be the tenant's position.
      REPLICA_MAX_LAG_MS: '600000',
      PG_CONNECT_TIMEOUT_MS: '1000',
      PG_POOL_MAX: '4',
      LOG_LEVEL: 'info',
    };
    instances = await Promise.all([startServer(env), startServer(env)]);
    standby = new pg.Client({ connectionString: cluster.standby.url });
    standby.on('error', () => {}); // the standby is stopped on purpose at the end
    await standby.connect();
  }, 90_000);
  afterAll(async () => {
    agent.destroy();
    await standby?.end().catch(() => {});
    await Promise.all((instances ?? []).map((s) => s.stop()));
    await cluster?.destroy();
  }, 30_000);

  const [a, b] = [0, 1];
  let written = 0;
  const write = async (via: number) => {
    const reference = `rr-${written++}`;
    const created = await send(
      instances[via]!.url,
      {
        method: 'POST',
        path: '/v3/payments',
        key: writerKey,
        headers: { 'idempotency-key': `key-${reference}` },
        body: { account_id: accounts[written % accounts.length], amount: 100 + written, currency: 'EUR', reference, capture: true, card: card() },
      },
      agent,
    );
    expect(created.status, created.body).toBe(201);
    return JSON.parse(created.body!).data as { id: string; reference: string };
  };
  /** The payment read by id and the list filtered by its reference, through `via`: both must have it. */
  const readBack = async (via: number, payment: { id: string; reference: string }) => {
    const one = await send(instances[via]!.url, { method: 'GET', path: `/v3/payments/${payment.id}`, key: writerKey }, agent);
    const list = await send(instances[via]!.url, { method: 'GET', path: `/v3/payments?filter[reference]=${payment.reference}`, key: writerKey }, agent);
    expect(one.status, one.body).toBe(200);
    expect(list.status, list.body).toBe(200);
    expect(JSON.parse(list.body!).data.map((p: { id: string }) => p.id)).toEqual([payment.id]);
    return [answeredBy(one), answeredBy(list)];
  };

  it('names the replica in the start-up line of each instance', async () => {
    for (const server of instances) {
      for (const begun = performance.now(); !server.output().includes('"listening on') && performance.now() - begun < 5_000; ) await sleep(50);
      expect(server.output()).toMatch(new RegExp(`read replicas 127\\.0\\.0\\.1:${cluster.standby.port} \\(replaying, lag \\d+ ms\\)`));
    }
  });

  it('with replay running: after every write through one instance, the other reads it, mostly from the replica; a tenant that does not write reads from the replica', async () => {
    const targets: string[] = [];
    for (let i = 0; i < 30; i++) {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      targets.push(...(await readBack(to, await write(from))));
    }
    const fromReplica = targets.filter((t) => t === replica).length;
    console.log(`replay running: ${fromReplica} of ${targets.length} reads right after a write served by the replica, the rest by the primary`);
    expect(targets.filter((t) => t !== replica && t !== 'primary')).toEqual([]);
    // Most (50 to 60 of 60 in four runs at load 16–19); the bound leaves room for a loaded one, where a question may outlast its 20 ms.
    expect(fromReplica).toBeGreaterThan(targets.length / 3);
    const bystander = await send(instances[a]!.url, { method: 'GET', path: '/v3/payments?per_page=5', key: bystanderKey }, agent);
    expect(bystander.status).toBe(200);
    expect(answeredBy(bystander)).toBe(replica);
  }, 60_000);

  it("one account's payments right after the account is made or deleted through the other instance: 200 while it is there, 404 after, the account checked where the page is read", async () => {
    const targets: string[] = [];
    for (let i = 0; i < 10; i++) {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      const made = await send(
        instances[from]!.url,
        { method: 'POST', path: '/v3/accounts', key: writerKey, body: { name: `Replica ${i}`, email: 'replica@example.com', currency: 'EUR' } },
        agent,
      );
      expect(made.status, made.body).toBe(201);
      const id = JSON.parse(made.body!).data.id as string;
      const listed = await send(instances[to]!.url, { method: 'GET', path: `/v3/accounts/${id}/payments`, key: writerKey }, agent);
      expect(listed.status, listed.body).toBe(200);
      expect(JSON.parse(listed.body!).meta.total).toBe(0);
      // Another tenant's key: the account is not theirs.
      const foreign = await send(instances[to]!.url, { method: 'GET', path: `/v3/accounts/${id}/payments`, key: bystanderKey }, agent);
      expect(foreign.status, foreign.body).toBe(404);
      expect(JSON.parse(foreign.body!).detail).toBe(`No account ${id}.`);
      expect((await send(instances[from]!.url, { method: 'DELETE', path: `/v3/accounts/${id}`, key: writerKey }, agent)).status).toBe(204);
      const gone = await send(instances[to]!.url, { method: 'GET', path: `/v3/accounts/${id}/payments`, key: writerKey }, agent);
      expect(gone.status, gone.body).toBe(404);
      expect(JSON.parse(gone.body!).detail).toBe(`No account ${id}.`);
      // A 404 is an error's answer, which names no database (as before: the account's lookup refused it first).
      targets.push(answeredBy(listed));
    }
    expect(targets.filter((t) => t !== replica && t !== 'primary')).toEqual([]);
  }, 60_000);

  it('with replay paused on the standby: every read after a write comes from the primary and sees it, on either instance; other tenants still read from the replica', async () => {
    await standby.query('select pg_wal_replay_pause()');
    try {
      const before = await Promise.all(instances.map((s) => readsByTarget(s, agent)));
      for (let i = 0; i < 20; i++) {
        const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
        const payment = await write(from);
        expect(await readBack(to, payment)).toEqual(['primary', 'primary']);
        // The same tenant's list total: every acknowledged write counted, through the writer's own instance too.
        expect(await readBack(from, payment)).toEqual(['primary', 'primary']);
      }
      const after = await Promise.all(instances.map((s) => readsByTarget(s, agent)));
      // /metrics agrees: 40 reads on each instance, all on the primary.
      for (const i of [a, b]) expect((after[i]!.primary ?? 0) - (before[i]!.primary ?? 0)).toBe(40);
      for (const i of [a, b]) expect(after[i]![replica.slice('replica '.length)] ?? 0).toBe(before[i]![replica.slice('replica '.length)] ?? 0);
      const bystander = await send(instances[b]!.url, { method: 'GET', path: '/v3/payments?per_page=5', key: bystanderKey }, agent);
      expect(answeredBy(bystander)).toBe(replica);
      const { rows } = await standby.query<{ paused: boolean }>('select pg_is_wal_replay_paused() as paused');
      expect(rows[0]?.paused).toBe(true);
    } finally {
      await standby.query('select pg_wal_replay_resume()');
    }
    // Replay resumed: the writer's reads go back to the replica once it has caught up.
    let back = '';
    for (const begun = performance.now(); back !== replica && performance.now() - begun < 10_000; await sleep(50)) {
      const list = await send(instances[b]!.url, { method: 'GET', path: '/v3/payments?per_page=1', key: writerKey }, agent);
      back = answeredBy(list);
    }
    expect(back).toBe(replica);
  }, 60_000);

  it('with the standby stopped: reads are still answered, by the primary; started again, it serves reads again', async () => {
    await cluster.standby.crash();
    for (const server of instances) {
      for (const key of [writerKey, bystanderKey]) {
        const list = await send(server.url, { method: 'GET', path: '/v3/payments?per_page=3', key }, agent);
        expect(list.status, list.body).toBe(200);
        expect(answeredBy(list)).toBe('primary');
      }
    }
    const metrics = await send(instances[a]!.url, { method: 'GET', path: '/metrics', key: '' }, agent);
    expect(metrics.body).toMatch(new RegExp(`^db_replica_up\\{replica="127.0.0.1:${cluster.standby.port}",status="down"\\} 0`, 'm'));
    await cluster.standby.restart();
    let back = '';
    for (const begun = performance.now(); back !== replica && performance.now() - begun < 15_000; await sleep(100)) {
      back = answeredBy(await send(instances[a]!.url, { method: 'GET', path: '/v3/payments?per_page=1', key: bystanderKey }, agent));
    }
    expect(back).toBe(replica);
  }, 60_000);

  it('the drill: the primary crashes and the standby is promoted while both instances write and read back; writes return within seconds, every acknowledged write is read back through the other instance and is on the new primary once', async () => {
    // Streaming and synchronous again (the standby was restarted) before anything is written.
    for (let tries = 0; ; tries++) {
      const admin = new pg.Client({ connectionString: cluster.primary.url });
      await admin.connect();
      const { rows } = await admin.query<{ sync_state: string }>('select sync_state from pg_stat_replication');
      await admin.end();
      if (rows[0]?.sync_state === 'sync') break;
      if (tries > 100) throw new Error('the standby did not become synchronous again');
      await sleep(100);
    }
    const acknowledged: Array<{ id: string; reference: string }> = [];
    const readAfterWrite: string[] = [];
    let stopping = false;
    let retried = 0;
    const writer = async (via: number, w: number) => {
      for (let i = 0; !stopping; i++) {
        const reference = `drill-${w}-${i}`;
        let payment: { id: string; reference: string } | undefined;
        for (let tries = 0; !payment; tries++) {
          const outcome = await send(
            instances[via]!.url,
            {
              method: 'POST',
              path: '/v3/payments',
              key: writerKey,
              headers: { 'idempotency-key': `key-${reference}` },
              body: { account_id: accounts[i % accounts.length], amount: 500 + i, currency: 'EUR', reference, capture: true, card: card() },
            },
            agent,
          );
          if (outcome.status === 201 || outcome.status === 200) payment = JSON.parse(outcome.body!).data;
          else if (tries > 400) throw new Error(`${reference} never acknowledged: ${outcome.status} ${outcome.body ?? outcome.error}`);
          else {
            expect([409, 503, undefined]).toContain(outcome.status);
            retried++;
            await sleep(50);
          }
        }
        acknowledged.push(payment);
        // Read back through the other instance (retried while nothing takes reads): it must be there.
        for (let tries = 0; ; tries++) {
          const one = await send(instances[1 - via]!.url, { method: 'GET', path: `/v3/payments/${payment.id}`, key: writerKey }, agent);
          if (one.status === 200) {
            readAfterWrite.push(answeredBy(one));
            break;
          }
          expect(one.status, one.body).toBe(503);
          if (tries > 400) throw new Error(`${payment.id} never read back`);
          await sleep(50);
        }
      }
    };
    const running = Promise.all([writer(a, 0), writer(b, 1), writer(a, 2), writer(b, 3)]);
    for (const begun = performance.now(); acknowledged.length < 20 && performance.now() - begun < 20_000; ) await sleep(50);
    await cluster.primary.crash();
    await sleep(500);
    await cluster.standby.promote();
    const promotedAt = performance.now();
    const countAtPromotion = acknowledged.length;
    for (; acknowledged.length === countAtPromotion && performance.now() - promotedAt < 30_000; ) await sleep(20);
    const backAfterMs = performance.now() - promotedAt;
    await sleep(1000);
    stopping = true;
    await running;
    console.log(
      `replica drill: ${acknowledged.length} writes acknowledged (${retried} retries), writes back ${Math.round(backAfterMs)} ms after the promotion; reads right after a write: ${JSON.stringify(Object.fromEntries([...new Set(readAfterWrite)].map((t) => [t, readAfterWrite.filter((x) => x === t).length])))}`,
    );
    expect(backAfterMs).toBeLessThan(5_000);
    expect(readAfterWrite).toHaveLength(acknowledged.length);

    const db = openDatabase(cluster.standby.url, { poolMax: 2 });
    try {
      const rows = await db.kysely.selectFrom('payments').select(['id', 'reference']).where('reference', 'like', 'drill-%').execute();
      const byId = new Map(rows.map((r) => [r.id, r.reference]));
      expect(acknowledged.filter((p) => byId.get(p.id) !== p.reference)).toEqual([]);
      expect(rows.length).toBe(new Set(rows.map((r) => r.reference)).size);
      const list = await send(instances[a]!.url, { method: 'GET', path: '/v3/payments?per_page=1', key: writerKey }, agent);
      const all = await db.kysely
        .selectFrom('payments')
        .innerJoin('tenants', 'tenants.id', 'payments.tenant_id')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenants.name', '=', 'writer')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(list.body!).meta.total).toBe(Number(all.n));
      // The replica URL now names a primary: not read as a replica any more.
      expect(answeredBy(list)).toBe('primary');
    } finally {
      await db.close();
    }
  }, 120_000);
});
