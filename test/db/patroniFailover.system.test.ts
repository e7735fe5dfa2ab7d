// The recipe of docs/scaling.md ("Deploy behind Patroni, etcd and HAProxy"), executed: two
// instances, one through libpq's multi-host URL and one through HAProxy, keep writing while
// Patroni switches the leader over and then while the leader's node is killed (SIGKILL).
// Part of `npm run drill` (DRILL=1), skipped elsewhere and where the packages are missing.
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { card } from '../support/cards.ts';
import { send } from '../support/loadDriver.ts';
import { missingDrillPackages, startPatroniCluster, type PatroniCluster } from '../support/patroniCluster.ts';
import { seed } from '../support/seedHelpers.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';

/** How each instance reaches the cluster. */
type Route = 'the multi-host URL' | 'HAProxy';
const ROUTES: Route[] = ['the multi-host URL', 'HAProxy'];
const missing = process.env.DRILL === '1' ? missingDrillPackages() : [];
const skipped =
  process.env.DRILL !== '1'
    ? 'run by `npm run drill`'
    : missing.length > 0
      ? `${missing.join(', ')} missing (apt-get install patroni etcd-server haproxy)`
      : undefined;
if (skipped && process.env.DRILL === '1') console.warn(`Patroni drill skipped: ${skipped}`);

describe.skipIf(skipped !== undefined)(
  `Patroni + etcd + HAProxy: switchover and a killed leader under writes${skipped ? ` (skipped: ${skipped})` : ''}`,
  () => {
    let cluster: PatroniCluster;
    let instances: ServerProcess[];
    let key: string;
    let accounts: string[];
    const agent = new Agent({ keepAlive: true });
    /** When each write was acknowledged, through which instance, and what it was. */
    const acknowledged: Array<{ at: number; via: Route; id: string; reference: string }> = [];
    let stopping = false;
    let retried = 0;
    let writers: Promise<void> | undefined;

    beforeAll(async () => {
      cluster = await startPatroniCluster();
      const leader = await cluster.leader();
      const db = openDatabase(`postgres://postgres@127.0.0.1:${leader.port}/postgres`, { poolMax: 2 });
      try {
        await migrateToLatest(db.kysely, db.dialect);
        await seed(db, 'patroni', 3, 20);
        const tenant = await findOrCreateTenant(db.kysely, 'patroni');
        key = await createApiKey(db.kysely, tenant.id, ['read', 'write']);
        accounts = (await db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenant.id).execute()).map((r) => r.id);
      } finally {
        await db.close();
      }
      const env = { PG_CONNECT_TIMEOUT_MS: '1000', PG_POOL_MAX: '4', LOG_LEVEL: 'warn' };
      instances = await Promise.all([startServer({ ...env, DATABASE_URL: cluster.multiHostUrl }), startServer({ ...env, DATABASE_URL: cluster.haproxyUrl })]);
      // Four writers, two on each instance, each retrying a write with its Idempotency-Key until it is acknowledged.
      const writer = async (via: ServerProcess, route: Route, w: number) => {
        for (let i = 0; !stopping; i++) {
          const reference = `patroni-${w}-${i}`;
          for (let tries = 0; ; tries++) {
            const outcome = await send(
              via.url,
              {
                method: 'POST',
                path: '/v3/payments',
                key,
                headers: { 'idempotency-key': `key-${reference}` },
                body: { account_id: accounts[i % accounts.length], amount: 500 + i, currency: 'EUR', reference, capture: true, card: card() },
              },
              agent,
            );
            if (outcome.status === 201 || outcome.status === 200) {
              acknowledged.push({ at: performance.now(), via: route, id: JSON.parse(outcome.body!).data.id, reference });
              break;
            }
            // 503 while no node takes writes, 409 while the same key's first try is still running; never a 500.
            expect([409, 503, undefined], `${reference}: ${outcome.status} ${outcome.body ?? outcome.error}`).toContain(outcome.status);
            if (tries > 1200) throw new Error(`${reference} never acknowledged: ${outcome.status} ${outcome.body ?? outcome.error}`);
            retried++;
            await sleep(50);
          }
        }
      };
      writers = Promise.all(ROUTES.flatMap((route, v) => [writer(instances[v]!, route, 2 * v), writer(instances[v]!, route, 2 * v + 1)])).then(() => {});
    }, 240_000);
    afterAll(async () => {
      stopping = true;
      await writers?.catch(() => {});
      agent.destroy();
      await Promise.all((instances ?? []).map((s) => s.stop()));
      await cluster?.destroy();
    }, 60_000);

    /**
     * Waits until `leader` leads and writes flow again on each route, and says, for each, when they
     * came back after `event`: the end of the longest gap between two of its acknowledgments, from
     * its last one before the event.
     */
    async function outageAround(event: number, label: string, leader: string) {
      // The whole change: until `leader` leads, then 2 s more and 10 writes on each route past that.
      while ((await cluster.leader()).name !== leader) await sleep(200);
      await sleep(2000);
      const settled = performance.now();
      const after = (route: Route) => acknowledged.filter((a) => a.via === route && a.at > settled).length;
      for (const begun = performance.now(); ROUTES.some((r) => after(r) < 10) && performance.now() - begun < 60_000; ) await sleep(50);
      const back = ROUTES.map((route) => {
        const ours = acknowledged.filter((a) => a.via === route).map((a) => a.at);
        const times = [Math.max(...ours.filter((at) => at <= event)), ...ours.filter((at) => at > event)];
        let end = { gap: 0, at: event };
        for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! > end.gap) end = { gap: times[i]! - times[i - 1]!, at: times[i]! };
        return { route, ms: Math.max(0, end.at - event), gap: end.gap };
      });
      console.log(
        `patroni drill, ${label}: writes back ${back.map((b) => `${(b.ms / 1000).toFixed(1)} s through ${b.route} (longest pause ${(b.gap / 1000).toFixed(1)} s)`).join(', ')}`,
      );
      for (const r of ROUTES) expect(after(r), r).toBeGreaterThanOrEqual(10);
      return Math.max(...back.map((b) => b.ms));
    }

    it('a switchover: writes through both instances stop for seconds and go on, no restart', async () => {
      for (const begun = performance.now(); acknowledged.length < 20 && performance.now() - begun < 30_000; ) await sleep(50);
      expect(acknowledged.length).toBeGreaterThanOrEqual(20);
      const from = await cluster.leader();
      const to = cluster.nodes.find((n) => n !== from)!;
      const event = performance.now();
      await cluster.switchover(from.name, to.name);
      expect(await outageAround(event, 'switchover', to.name)).toBeLessThan(30_000);
      expect((await cluster.leader()).name).toBe(to.name);
      for (const server of instances) expect(server.child.exitCode).toBeNull();
    }, 120_000);

    it('the leader’s node killed (its Patroni and PostgreSQL, SIGKILL): the synchronous standby takes over, writes go on, no restart', async () => {
      const leader = await cluster.leader();
      const standby = cluster.nodes.find((n) => n !== leader)!;
      // The old leader back as the synchronous standby: every write acknowledged from here is on it.
      await cluster.synchronous(standby.name);
      const event = performance.now();
      leader.kill();
      expect(await outageAround(event, 'kill -9 of the leader', standby.name)).toBeLessThan(45_000);
      expect((await cluster.leader()).name).toBe(standby.name);
      for (const server of instances) expect(server.child.exitCode).toBeNull();
    }, 150_000);

    it('every acknowledged write is on the new leader exactly once, and the list total counts them', async () => {
      stopping = true;
      await writers;
      const leader = await cluster.leader();
      const db = openDatabase(`postgres://postgres@127.0.0.1:${leader.port}/postgres`, { poolMax: 2 });
      try {
        const rows = await db.kysely.selectFrom('payments').select(['id', 'reference']).where('reference', 'like', 'patroni-%').execute();
        const byId = new Map(rows.map((r) => [r.id, r.reference]));
        const lost = acknowledged.filter((a) => byId.get(a.id) !== a.reference);
        const duplicates = rows.length - new Set(rows.map((r) => r.reference)).size;
        console.log(
          `patroni drill: ${acknowledged.length} writes acknowledged (${retried} retries), ${lost.length} lost, ${duplicates} duplicates, ${rows.length} rows`,
        );
        expect(lost).toEqual([]);
        expect(duplicates).toBe(0);
        const total = await send(instances[1]!.url, { method: 'GET', path: '/v3/payments?per_page=1', key }, agent);
        expect(total.status, total.body).toBe(200);
        const all = await db.kysely
          .selectFrom('payments')
          .innerJoin('tenants', 'tenants.id', 'payments.tenant_id')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('tenants.name', '=', 'patroni')
          .executeTakeFirstOrThrow();
        expect(JSON.parse(total.body!).meta.total).toBe(Number(all.n));
      } finally {
        await db.close();
      }
    }, 60_000);
  },
);
