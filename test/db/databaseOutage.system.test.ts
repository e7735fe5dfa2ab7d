// Runs once (unit project), on a PostgreSQL cluster of its own that it stops and starts: the
// machine's shared server is never touched.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { card } from '../support/cards.ts';
import { driveLoad, send, type Call, type Outcome } from '../support/loadDriver.ts';
import { seed } from '../support/seedHelpers.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwawayPostgres.ts';
import { Agent } from 'node:http';

/** No request may take longer than this, database or not (connect timeout 1 s, a few DB calls per request). */
const ANSWER_BOUND_MS = 5_000;

describe('a PostgreSQL outage in the middle of mixed traffic', () => {
  let cluster: ThrowawayPostgres;
  let server: ServerProcess;
  let db: Db;
  let key: string;
  let accounts: string[];
  let payments: string[];

  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    db = openDatabase(cluster.url, { poolMax: 2 });
    await migrateToLatest(db.kysely, db.dialect);
    await seed(db, 'outage', 5, 300);
    const tenant = await findOrCreateTenant(db.kysely, 'outage');
    key = await createApiKey(db.kysely, tenant.id, ['read', 'write']);
    accounts = (await db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenant.id).where('status', '=', 'active').execute()).map(
      (r) => r.id,
    );
    payments = (await db.kysely.selectFrom('payments').select('id').where('tenant_id', '=', tenant.id).limit(50).execute()).map((r) => r.id);
    await db.close();
    server = await startServer({ DATABASE_URL: cluster.url, PG_CONNECT_TIMEOUT_MS: '1000', READY_TIMEOUT_MS: '1000', PG_POOL_MAX: '5', LOG_LEVEL: 'warn' });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await db?.close().catch(() => {});
    await cluster?.destroy();
  }, 30_000);

  it('answers 503 + Retry-After fast while it is down, reports not ready, resumes by itself, and keeps every acknowledged payment exactly once', async () => {
    let n = 0;
    const authorized: string[] = [];
    const next = (): Call => {
      const i = n++;
      const kind = i % 10;
      if (kind < 4) {
        const sort = ['created_at', '-created_at', 'amount', '-amount'][i % 4];
        const filter = i % 3 === 0 ? '&filter[status]=succeeded' : '';
        return { method: 'GET', path: `/v3/payments?per_page=25&page=${1 + (i % 12)}&sort=${sort}${filter}`, key };
      }
      if (kind < 6) return { method: 'GET', path: `/v3/payments/${payments[i % payments.length]}`, key };
      if (kind === 9 && authorized.length) {
        const id = authorized.shift()!;
        return { method: 'POST', path: `/v3/payments/${id}/capture`, key, body: {}, headers: { 'idempotency-key': `cap-${id}` } };
      }
      const reference = `out-${i}`;
      return {
        method: 'POST',
        path: '/v3/payments',
        key,
        tag: reference,
        headers: { 'idempotency-key': `key-${reference}` },
        body: { account_id: accounts[i % accounts.length], amount: 100 + i, currency: 'EUR', reference, capture: i % 2 === 0, card: card() },
      };
    };
    const load = driveLoad(server.url, 6, () => next());
    const readyAt = async () => {
      const outcome = await send(server.url, { method: 'GET', path: '/ready', key }, new Agent());
      return outcome;
    };

    // Remember authorized payments as they are acknowledged, to capture them later.
    const done: Outcome[] = [];
    const watch = setInterval(() => {
      for (const o of load.outcomes.splice(0)) {
        done.push(o);
        if (o.status === 201 && o.call.tag) {
          const body = JSON.parse(o.body!);
          if (body.data.status === 'authorized') authorized.push(body.data.id);
        }
      }
    }, 20);
    // Traffic flowing (however slow the machine), then the database goes away.
    for (const begun = performance.now(); done.length + load.outcomes.length < 40 && performance.now() - begun < 20_000; ) await sleep(50);
    // On a quick machine those 40 take a few tens of ms: let them end well before the stop, as
    // "before the outage" below counts only what ended 200 ms or more before it.
    await sleep(400);
    await cluster.stop();
    const downSince = performance.now();
    const readyWhileDown: Outcome[] = [];
    while (performance.now() - downSince < 4000) {
      readyWhileDown.push(await readyAt());
      await sleep(250);
    }
    const downUntil = performance.now();
    await cluster.start();
    let recoveredAt = 0;
    for (let tries = 0; tries < 60 && !recoveredAt; tries++) {
      if ((await readyAt()).status === 200) recoveredAt = performance.now();
      else await sleep(250);
    }
    expect(recoveredAt, 'ready again without restarting the app').toBeGreaterThan(0);
    for (
      const begun = performance.now();
      [...done, ...load.outcomes].filter((o) => o.startedAt > recoveredAt).length < 40 && performance.now() - begun < 20_000;
    )
      await sleep(50);
    clearInterval(watch);
    done.push(...(await load.stop()));

    // No hang, no crash.
    expect(server.child.exitCode, server.output().slice(-2000)).toBeNull();
    expect(done.filter((o) => o.error).map((o) => `${o.call.method} ${o.call.path}: ${o.error}`)).toEqual([]);
    expect(Math.max(...done.map((o) => o.endedAt - o.startedAt))).toBeLessThan(ANSWER_BOUND_MS);
    expect(new Set(done.map((o) => o.status))).toSatisfy((statuses: Set<number>) => [...statuses].every((s) => [200, 201, 503].includes(s)));

    // Down: every request is a 503 problem with Retry-After, and so is /ready.
    const whileDown = done.filter((o) => o.startedAt > downSince && o.endedAt < downUntil);
    expect(whileDown.length).toBeGreaterThan(20);
    for (const o of done.filter((o) => o.status === 503)) {
      expect(o.headers!['content-type']).toMatch(/^application\/problem\+json/);
      expect(o.headers!['retry-after']).toBeDefined();
      expect(JSON.parse(o.body!)).toMatchObject({ status: 503 });
    }
    expect(whileDown.map((o) => o.status).filter((s) => s !== 503)).toEqual([]);
    expect(readyWhileDown.map((o) => o.status).filter((s) => s !== 503)).toEqual([]);

    // Back: everything started after recovery succeeds.
    const afterRecovery = done.filter((o) => o.startedAt > recoveredAt);
    expect(afterRecovery.length).toBeGreaterThan(20);
    expect(afterRecovery.filter((o) => o.status! >= 300).map((o) => `${o.call.path} ${o.status} ${o.body}`)).toEqual([]);
    const before = done.filter((o) => o.endedAt < downSince - 200);
    expect(before.filter((o) => o.status! < 300).length).toBeGreaterThan(10);

    // Every payment acknowledged with 201 exists exactly once; nothing was written twice.
    const acknowledged = done.filter((o) => o.status === 201).map((o) => JSON.parse(o.body!).data as { id: string; reference: string });
    expect(acknowledged.length).toBeGreaterThan(10);
    db = openDatabase(cluster.url, { poolMax: 2 });
    const rows = await db.kysely.selectFrom('payments').select(['id', 'reference']).where('reference', 'like', 'out-%').execute();
    const byId = new Map(rows.map((r) => [r.id, r.reference]));
    const perReference = new Map<string, number>();
    for (const r of rows) perReference.set(r.reference!, (perReference.get(r.reference!) ?? 0) + 1);
    for (const payment of acknowledged) {
      expect(byId.get(payment.id)).toBe(payment.reference);
      expect(perReference.get(payment.reference)).toBe(1);
    }
    expect([...perReference.values()].filter((c) => c !== 1)).toEqual([]);
    const keys = await db.kysely
      .selectFrom('idempotency_keys')
      .select(['key', 'response_status'])
      .where(
        'key',
        'in',
        acknowledged.map((p) => `key-${p.reference}`),
      )
      .execute();
    expect(keys).toHaveLength(acknowledged.length);
    expect(keys.every((k) => k.response_status === 201)).toBe(true);
  }, 60_000);
});
