// A read replica whose WAL stream is cut while the primary goes on taking writes: a primary and an
// asynchronous standby of their own (loopback ports) streaming through a TCP relay in this process
// that stops passing bytes without a reset; one instance connects directly, one through
// transaction-pooling PgBouncers. The machine's shared server is never touched.
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgBouncer, type PgBouncer } from '../../scripts/support/pgbouncer.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { card } from '../support/cards.ts';
import { send, type Outcome } from '../support/loadDriver.ts';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../support/replicatedPostgres.ts';
import { seed } from '../support/seedHelpers.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { startTcpRelay, type TcpRelay } from '../support/tcpRelay.ts';

const MAX_LAG_MS = 2_000;
/** What the bound may be overrun by: the primary's position is sampled every MAX_LAG_MS / 4, and a loaded machine answers late. */
const MARGIN_MS = 1_500;

function answeredBy(outcome: Outcome): string {
  const timing = String(outcome.headers?.['server-timing'] ?? '');
  return /db;desc="([^"]+)"/.exec(timing)?.[1] ?? `(none: ${outcome.status} ${timing})`;
}

/** One instance's `db_replica_lag_seconds` and `db_replica_up` for the standby. */
async function replicaMetrics(server: ServerProcess, agent: Agent, replica: string): Promise<{ lagSeconds: number; up: number }> {
  const body = (await send(server.url, { method: 'GET', path: '/metrics', key: '' }, agent)).body ?? '';
  const lag = new RegExp(`^db_replica_lag_seconds\\{replica="${replica}"\\} (\\S+)`, 'm').exec(body)?.[1];
  const up = new RegExp(`^db_replica_up\\{replica="${replica}",status="[^"]+"\\} (\\S+)`, 'm').exec(body)?.[1];
  return { lagSeconds: Number(lag ?? Number.NaN), up: Number(up ?? Number.NaN) };
}

describe('a read replica cut off from its primary while writes go on', () => {
  let relay: TcpRelay;
  let cluster: ReplicatedPostgres;
  let bouncers: PgBouncer[] = [];
  /** Each instance, and the replica's name as it knows it (behind PgBouncer: the pooler's address). */
  let instances: Array<{ name: string; server: ServerProcess; replica: string }> = [];
  let writerKey: string;
  let readerKey: string;
  let accounts: string[];
  const agent = new Agent({ keepAlive: true });

  beforeAll(async () => {
    cluster = await startReplicatedPostgres({
      synchronous: false,
      streamVia: async (primaryPort) => {
        relay = await startTcpRelay(primaryPort);
        return relay.port;
      },
    });
    const db = openDatabase(cluster.primary.url, { poolMax: 2 });
    try {
      await migrateToLatest(db.kysely, db.dialect);
      await seed(db, 'writer', 3, 10);
      await seed(db, 'reader', 2, 10);
      const writer = await findOrCreateTenant(db.kysely, 'writer');
      writerKey = await createApiKey(db.kysely, writer.id, ['read', 'write']);
      readerKey = await createApiKey(db.kysely, (await findOrCreateTenant(db.kysely, 'reader')).id, ['read']);
      accounts = (await db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', writer.id).where('status', '=', 'active').execute()).map(
        (r) => r.id,
      );
    } finally {
      await db.close();
    }
    bouncers = await Promise.all([cluster.primary.port, cluster.standby.port].map((serverPort) => startPgBouncer({ poolMode: 'transaction', serverPort })));
    const [toPrimary, toStandby] = bouncers as [PgBouncer, PgBouncer];
    const common = { REPLICA_MAX_LAG_MS: String(MAX_LAG_MS), PG_CONNECT_TIMEOUT_MS: '1000', PG_POOL_MAX: '4', LOG_LEVEL: 'warn' };
    instances = [
      {
        name: 'direct',
        replica: `127.0.0.1:${cluster.standby.port}`,
        server: await startServer({ ...common, DATABASE_URL: cluster.primary.url, DATABASE_REPLICA_URLS: cluster.standby.url }),
      },
      {
        name: 'through PgBouncer',
        replica: `127.0.0.1:${toStandby.port}`,
        server: await startServer({
          ...common,
          PG_POOLER: 'transaction',
          DATABASE_URL: toPrimary.through(cluster.primary.url),
          DATABASE_REPLICA_URLS: toStandby.through(cluster.standby.url),
        }),
      },
    ];
  }, 120_000);
  afterAll(async () => {
    agent.destroy();
    await Promise.all(instances.map(({ server }) => server.stop()));
    await Promise.all(bouncers.map((b) => b.stop()));
    await relay?.close();
    await cluster?.destroy();
  }, 30_000);

  const readerRead = (server: ServerProcess) => send(server.url, { method: 'GET', path: '/v3/payments?per_page=5', key: readerKey }, agent);

  it('stops reading from it within REPLICA_MAX_LAG_MS, shows its lag growing in /metrics, and reads from it again once it has caught up', async () => {
    // Replaying: a tenant that only reads is served by the replica on both instances.
    for (const { name, server, replica } of instances) {
      let by = '';
      for (const begun = performance.now(); by !== `replica ${replica}` && performance.now() - begun < 10_000; await sleep(100)) {
        by = answeredBy(await readerRead(server));
      }
      expect(by, name).toBe(`replica ${replica}`);
      expect((await replicaMetrics(server, agent, replica)).lagSeconds, name).toBeLessThan(MAX_LAG_MS / 1000);
    }

    // Another tenant writes throughout, through the direct instance.
    let writing = true;
    let written = 0;
    const writes = (async () => {
      for (let i = 0; writing; i++) {
        const reference = `cut-${i}`;
        const created = await send(
          instances[0]!.server.url,
          {
            method: 'POST',
            path: '/v3/payments',
            key: writerKey,
            headers: { 'idempotency-key': `key-${reference}` },
            body: { account_id: accounts[i % accounts.length], amount: 100 + i, currency: 'EUR', reference, capture: true, card: card() },
          },
          agent,
        );
        expect(created.status, created.body).toBe(201);
        written++;
        await sleep(50);
      }
    })();

    try {
      relay.blackhole();
      const cutAt = performance.now();
      // Each instance: the time of its first read answered by the primary; every read after it too.
      const movedAfter = new Map<string, number>();
      const lateReplicaReads: string[] = [];
      while (performance.now() - cutAt < MAX_LAG_MS + MARGIN_MS + 1_000) {
        for (const { name, server } of instances) {
          const read = await readerRead(server);
          expect(read.status, read.body).toBe(200);
          const by = answeredBy(read);
          if (by === 'primary' && !movedAfter.has(name)) movedAfter.set(name, read.startedAt - cutAt);
          else if (by !== 'primary' && movedAfter.has(name)) lateReplicaReads.push(`${name}: ${by} ${Math.round(read.startedAt - cutAt)} ms after the cut`);
        }
        await sleep(50);
      }
      console.log(
        `cut standby: reads moved to the primary ${JSON.stringify(Object.fromEntries([...movedAfter].map(([n, ms]) => [n, Math.round(ms)])))} ms after the cut; ${written} writes meanwhile`,
      );
      for (const { name } of instances) {
        expect(movedAfter.get(name), `${name}: reads still answered by the cut standby`).toBeDefined();
        expect(movedAfter.get(name)!, name).toBeLessThan(MAX_LAG_MS + MARGIN_MS);
      }
      expect(lateReplicaReads).toEqual([]);

      // The standby is behind, and has replayed all it received: what the lag used to be taken as 0 for.
      const [primary, standby] = [new pg.Client(cluster.primary.url), new pg.Client(cluster.standby.url)];
      await Promise.all([primary.connect(), standby.connect()]);
      try {
        const { rows: p } = await primary.query<{ at: string }>(`select (pg_current_wal_lsn() - '0/0')::bigint as at`);
        const { rows: s } = await standby.query<{ replayed: string; received: string | null }>(
          `select (pg_last_wal_replay_lsn() - '0/0')::bigint as replayed, (pg_last_wal_receive_lsn() - '0/0')::bigint as received`,
        );
        expect(Number(s[0]!.replayed)).toBeLessThan(Number(p[0]!.at));
        expect(Number(s[0]!.received ?? 0)).toBeLessThanOrEqual(Number(s[0]!.replayed));
      } finally {
        await Promise.all([primary.end(), standby.end()]);
      }

      // /metrics: the lag past the bound, and growing; the replica not up.
      for (const { name, server, replica } of instances) {
        const first = await replicaMetrics(server, agent, replica);
        expect(first.lagSeconds, name).toBeGreaterThan(MAX_LAG_MS / 1000);
        expect(first.up, name).toBe(0);
        await sleep(1_000);
        expect((await replicaMetrics(server, agent, replica)).lagSeconds, name).toBeGreaterThanOrEqual(first.lagSeconds + 0.9);
      }
    } finally {
      relay.resume();
      writing = false;
      await writes;
    }

    // Streaming again: the standby catches up and serves the reader again, its lag under the bound.
    for (const { name, server, replica } of instances) {
      let by = '';
      for (const begun = performance.now(); by !== `replica ${replica}` && performance.now() - begun < 15_000; await sleep(100)) {
        by = answeredBy(await readerRead(server));
      }
      expect(by, name).toBe(`replica ${replica}`);
      expect((await replicaMetrics(server, agent, replica)).lagSeconds, name).toBeLessThan(MAX_LAG_MS / 1000);
    }
  }, 90_000);
});
