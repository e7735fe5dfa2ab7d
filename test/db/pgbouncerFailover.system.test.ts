// The recipe of docs/scaling.md ("Deploy behind PgBouncer with a read replica and failover"),
// executed: a primary and a synchronous standby, Debian's PgBouncer in front of each (transaction
// pooling, the recipe's settings), one instance naming both PgBouncers in DATABASE_URL and the
// standby's in DATABASE_REPLICA_URLS. The primary crashes and the standby is promoted while it writes.
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgBouncer, startPgBouncer } from '../../scripts/support/pgbouncer.ts';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { card } from '../support/cards.ts';
import { send, type Outcome } from '../support/loadDriver.ts';
import { type ReplicatedPostgres, startReplicatedPostgres } from '../support/replicatedPostgres.ts';
import { seed } from '../support/seedHelpers.ts';
import { type ServerProcess, startServer } from '../support/serverProcess.ts';

/** The recipe's PgBouncer settings that bound a client's wait for a server that is gone. */
const RECIPE = { server_connect_timeout: 2, server_login_retry: 1, query_wait_timeout: 5 };

const answeredBy = (outcome: Outcome) => /db;desc="([^"]+)"/.exec(String(outcome.headers?.['server-timing'] ?? ''))?.[1];

describe('behind PgBouncer, a read replica and failover: the recipe', () => {
  let cluster: ReplicatedPostgres;
  let bouncers: PgBouncer[];
  let server: ServerProcess;
  let key: string;
  let account: string;
  const agent = new Agent({ keepAlive: true });

  beforeAll(async () => {
    cluster = await startReplicatedPostgres();
    bouncers = [
      await startPgBouncer({ serverPort: cluster.primary.port, poolSize: 10, settings: RECIPE }),
      await startPgBouncer({ serverPort: cluster.standby.port, poolSize: 10, settings: RECIPE }),
    ];
    const db = openDatabase(cluster.primary.url, { poolMax: 2 });
    try {
      await migrateToLatest(db.kysely, db.dialect);
      await seed(db, 'bounced', 2, 10);
      const tenant = await findOrCreateTenant(db.kysely, 'bounced');
      key = await createApiKey(db.kysely, tenant.id, ['read', 'write']);
      account = (await db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenant.id).executeTakeFirstOrThrow()).id;
    } finally {
      await db.close();
    }
    const [first, second] = bouncers.map((b) => `127.0.0.1:${b.port}`);
    server = await startServer({
      DATABASE_URL: `postgres://postgres@${first},${second}/postgres`,
      DATABASE_REPLICA_URLS: `postgres://postgres@${second}/postgres`,
      PG_POOLER: 'transaction',
      PG_CONNECT_TIMEOUT_MS: '2000',
    });
  }, 90_000);
  afterAll(async () => {
    agent.destroy();
    await server?.stop();
    for (const bouncer of bouncers ?? []) await bouncer.stop();
    await cluster?.destroy();
  }, 30_000);

  it('reads from the replica through its PgBouncer; after the crash and the promotion, writes are back within seconds, none lost or twice, no restart', async () => {
    for (
      let tries = 0;
      answeredBy(await send(server.url, { method: 'GET', path: '/v3/accounts', key }, agent)) !== `replica 127.0.0.1:${bouncers[1]!.port}`;
      tries++
    ) {
      if (tries > 100) throw new Error('never read from the replica through its PgBouncer');
      await sleep(100);
    }
    const acknowledged: Array<{ at: number; id: string; reference: string }> = [];
    const statuses = new Map<string, number>();
    let stopping = false;
    const writer = async (w: number) => {
      for (let i = 0; !stopping; i++) {
        const reference = `bounced-${w}-${i}`;
        for (let tries = 0; ; tries++) {
          const outcome = await send(
            server.url,
            {
              method: 'POST',
              path: '/v3/payments',
              key,
              headers: { 'idempotency-key': reference },
              body: { account_id: account, amount: 100 + i, currency: 'EUR', reference, capture: true, card: card() },
            },
            agent,
          );
          const status = String(outcome.status ?? outcome.error);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (outcome.status === 201 || outcome.status === 200) {
            acknowledged.push({ at: performance.now(), id: JSON.parse(outcome.body!).data.id, reference });
            break;
          }
          // 503 while no host takes writes, 409 while the same key's first try runs, or a kept-alive socket reset; never a 500.
          expect([409, 503, undefined], `${reference}: ${outcome.status} ${outcome.body ?? outcome.error}`).toContain(outcome.status);
          if (tries > 600)
            throw new Error(
              `${reference} never acknowledged: ${outcome.status} ${outcome.body ?? outcome.error}; server exit ${server.child.exitCode}\n${server.output().slice(-3000)}`,
            );
          await sleep(50);
        }
      }
    };
    const running = Promise.all([writer(0), writer(1), writer(2)]);
    for (const begun = performance.now(); acknowledged.length < 20 && performance.now() - begun < 20_000; ) await sleep(50);
    await cluster.primary.crash();
    await sleep(500);
    await cluster.standby.promote();
    const promotedAt = performance.now();
    for (; !acknowledged.some((a) => a.at > promotedAt) && performance.now() - promotedAt < 30_000; ) await sleep(20);
    const backAfterMs = Math.round(performance.now() - promotedAt);
    await sleep(1000);
    stopping = true;
    await running;
    console.log(`PgBouncer drill: writes back ${backAfterMs} ms after the promotion; answers ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(backAfterMs).toBeLessThan(5_000);
    expect(server.child.exitCode).toBeNull();

    const db = openDatabase(cluster.standby.url, { poolMax: 1 });
    try {
      const rows = await db.kysely.selectFrom('payments').select(['id', 'reference']).where('reference', 'like', 'bounced-%').execute();
      const byId = new Map(rows.map((r) => [r.id, r.reference]));
      expect(acknowledged.filter((a) => byId.get(a.id) !== a.reference)).toEqual([]);
      expect(rows.length).toBe(new Set(rows.map((r) => r.reference)).size);
    } finally {
      await db.close();
    }
    // The promoted standby answers as the primary now, through the same PgBouncer.
    expect(answeredBy(await send(server.url, { method: 'GET', path: '/v3/accounts', key }, agent))).toBe('primary');
  }, 120_000);
});
