// Runs once (system project), on a PostgreSQL cluster of its own that it stops and starts, with
// two server processes on it: the machine's shared server is never touched.
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { card } from '../support/cards.ts';
import { send, type Outcome } from '../support/loadDriver.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwawayPostgres.ts';

/** "A few seconds": what a retry may wait after the database is back, or after a crash. */
const RETRYABLE_WITHIN_MS = 5_000;

describe('an Idempotency-Key whose request did not complete', () => {
  let cluster: ThrowawayPostgres;
  let first: ServerProcess;
  let second: ServerProcess;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    const db = openDatabase(cluster.url, { poolMax: 2 });
    await migrateToLatest(db.kysely, db.dialect);
    const tenant = await findOrCreateTenant(db.kysely, 'unfinished');
    key = await createApiKey(db.kysely, tenant.id, ['read', 'write']);
    await db.close();
    const env = { DATABASE_URL: cluster.url, PG_CONNECT_TIMEOUT_MS: '1000', READY_TIMEOUT_MS: '1000', LOG_LEVEL: 'silent' };
    [first, second] = await Promise.all([startServer(env), startServer(env)]);
    const account = await send(
      first.url,
      { method: 'POST', path: '/v3/accounts', key, body: { name: 'U', email: 'u@example.com', currency: 'EUR' } },
      new Agent(),
    );
    accountId = JSON.parse(account.body!).data.id;
  }, 90_000);
  afterAll(async () => {
    // The second test kills `first`: a killed process has nothing left to stop.
    await Promise.all([first?.child.signalCode ? undefined : first?.stop(), second?.stop()]);
    await cluster?.destroy();
  }, 30_000);

  const pay = (server: ServerProcess, idempotencyKey: string) =>
    send(
      server.url,
      {
        method: 'POST',
        path: '/v3/payments',
        key,
        headers: { 'idempotency-key': idempotencyKey },
        body: { account_id: accountId, amount: 1234, currency: 'EUR', card: card() },
      },
      new Agent(),
    );

  /** Holds every payment insert back (from a connection of the test's own) until released. */
  const holdPaymentWrites = async () => {
    const client = new pg.Client({ connectionString: cluster.url });
    client.on('error', () => {}); // the outage ends this session too
    await client.connect();
    await client.query('begin');
    await client.query('lock table payments in exclusive mode');
    return client;
  };

  const waitForBlockedWrite = async (watcher: pg.Client, write: Promise<Outcome>) => {
    let ended: Outcome | undefined;
    void write.then((outcome) => (ended = outcome));
    for (let tries = 0; tries < 100 && !ended; tries++) {
      const { rows } = await watcher.query(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid()`);
      if (rows[0].n > 0) return;
      await sleep(50);
    }
    throw new Error(`the payment never reached its insert: ${ended?.status} ${ended?.body}`);
  };

  /** Retries with the same key, as a client does, until an answer that is not a 409; when it came, from `since`. */
  const retryUntilAnswered = async (server: ServerProcess, idempotencyKey: string, since: number) => {
    let outcome: Outcome;
    do {
      outcome = await pay(server, idempotencyKey);
      if (outcome.status !== 409) break;
      await sleep(200);
    } while (performance.now() - since < 15_000);
    return { outcome, afterMs: performance.now() - since };
  };

  it('is answered 503 in an outage, holds off a duplicate on another instance meanwhile, and is retryable as soon as the database is back', async () => {
    const holder = await holdPaymentWrites();
    const inFlight = pay(first, 'outage-1');
    await waitForBlockedWrite(holder, inFlight);

    const duplicate = await pay(second, 'outage-1');
    expect(duplicate.status, duplicate.body).toBe(409);
    expect(duplicate.headers!['retry-after']).toBe('1');

    await cluster.stop();
    expect((await inFlight).status).toBe(503);
    await cluster.start();
    for (let tries = 0; tries < 60; tries++) {
      if ((await send(first.url, { method: 'GET', path: '/ready', key: '' }, new Agent())).status === 200) break;
      await sleep(250);
    }
    const back = performance.now();
    const { outcome, afterMs } = await retryUntilAnswered(first, 'outage-1', back);
    expect(outcome.status, outcome.body).toBe(201);
    expect(afterMs).toBeLessThan(RETRYABLE_WITHIN_MS);
    // And it is the key's one answer from now on, on either instance.
    const replay = await pay(second, 'outage-1');
    expect(replay.headers!['idempotent-replayed']).toBe('true');
    expect(JSON.parse(replay.body!).data.id).toBe(JSON.parse(outcome.body!).data.id);
  }, 60_000);

  it('is retryable on another instance within a few seconds of its process being killed mid-write', async () => {
    const holder = await holdPaymentWrites();
    const inFlight = pay(first, 'crash-1');
    await waitForBlockedWrite(holder, inFlight);
    expect((await pay(second, 'crash-1')).status).toBe(409);

    first.child.kill('SIGKILL');
    expect((await inFlight).error).toBeDefined();
    const killed = performance.now();
    // Its statement is still waiting for the table lock: the claim must not wait for it.
    for (let tries = 0; tries < 50; tries++) {
      const { rows } = await holder.query(`select count(*)::int as n from pg_locks where locktype = 'advisory'`);
      if (rows[0].n === 0) break;
      await sleep(100);
    }
    await holder.query('rollback');
    await holder.end();
    const { outcome, afterMs } = await retryUntilAnswered(second, 'crash-1', killed);
    expect(outcome.status, outcome.body).toBe(201);
    expect(afterMs).toBeLessThan(RETRYABLE_WITHIN_MS);
  }, 60_000);
});
