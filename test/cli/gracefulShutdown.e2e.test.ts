import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { card } from '../support/cards.ts';
import { driveLoad, send, type Call, type Outcome } from '../support/loadDriver.ts';
import { seed } from '../support/seedHelpers.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { appOn } from '../support/testApp.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';

const DRAIN_MS = 800;

describe('graceful shutdown under load (SIGTERM)', () => {
  let database: TestDatabase;
  let key: string;
  let accounts: string[];

  beforeAll(async () => {
    database = await createTestDatabase();
    await seed(database.db, 'shutdown', 5, 2000);
    const tenant = await findOrCreateTenant(database.db.kysely, 'shutdown');
    key = await createApiKey(database.db.kysely, tenant.id, ['read', 'write']);
    accounts = (await database.db.kysely.selectFrom('accounts').select('id').where('status', '=', 'active').execute()).map((r) => r.id);
  }, 60_000);
  afterAll(() => database.drop());

  it('turns not ready first, finishes what it accepted, refuses the rest cleanly, and exits 0', async () => {
    const server: ServerProcess = await startServer({ ...database.env, SHUTDOWN_DRAIN_MS: String(DRAIN_MS), LOG_LEVEL: 'info' });
    let n = 0;
    const next = (): Call => {
      const i = n++;
      if (i % 3 === 2) {
        const reference = `sd-${i}`;
        return {
          method: 'POST',
          path: '/v3/payments',
          key,
          tag: reference,
          headers: { 'idempotency-key': reference },
          body: { account_id: accounts[i % accounts.length], amount: 500 + i, currency: 'USD', reference, card: card() },
        };
      }
      return { method: 'GET', path: `/v3/payments?per_page=${i % 2 ? 200 : 20}&page=${1 + (i % 7)}&sort=-amount`, key };
    };
    // Clients behave as behind a load balancer: a response with `Connection: close`, a 503, or a
    // refused connection sends that client elsewhere (here: it stops).
    const load = driveLoad(server.url, 12, next, { retireOn: (o) => o.headers?.connection === 'close' || o.status === 503 || !!o.error });

    // Under way: some answers in (however slow the machine), then the signal mid-load.
    for (const begun = performance.now(); load.outcomes.length < 40 && performance.now() - begun < 20_000; ) await sleep(50);
    // 'close', not 'exit': by then everything the process wrote has been read.
    const exit = new Promise<number | null>((done) => server.child.on('close', (code) => done(code)));
    const signalledAt = performance.now();
    server.child.kill('SIGTERM');
    // Probes on fresh connections, as a load balancer's health check and a new client would open.
    // The signal is handled whenever the busy child's event loop gets to it, so a probe counts as
    // "after the signal" only once the child has logged that it is draining (it logs right after
    // turning readiness off).
    const draining = () => server.output().includes('draining: readiness is off');
    const probes: Array<{ ready: Outcome; work: Outcome; afterDrainLogged: boolean }> = [];
    let exited = false;
    void exit.then(() => (exited = true));
    while (!exited) {
      const afterDrainLogged = draining();
      const [ready, work] = await Promise.all([
        send(server.url, { method: 'GET', path: '/ready', key }, new Agent()),
        send(server.url, { method: 'GET', path: '/v3/payments?per_page=5', key }, new Agent()),
      ]);
      probes.push({ ready, work, afterDrainLogged });
      if (ready.error && work.error) break;
      await sleep(50);
    }
    const code = await exit;
    const outcomes = await load.stop();

    expect(code, server.output().slice(-3000)).toBe(0);
    // A request the server never read (its id is in no log line) was not accepted: a reset of
    // such a connection — it raced the listener closing — is a refusal, safe to retry elsewhere.
    const log = server.output();
    const refused = (o: Outcome) => o.error === 'ECONNREFUSED' || (o.error === 'ECONNRESET' && !log.includes(o.requestId));
    const cleanAnswer = (o: Outcome) =>
      o.status === 200 || o.status === 201 || (o.status === 503 && o.headers!['content-type']!.toString().startsWith('application/problem+json'));

    // Readiness turned 503 as soon as the signal was handled, while the instance still served work
    // (the drain window)…
    const afterDrain = probes.filter((p) => p.afterDrainLogged);
    expect(afterDrain.length).toBeGreaterThan(0);
    expect(afterDrain[0].ready.status).toBe(503);
    const servedWhileDraining = afterDrain.filter((p) => p.ready.status === 503 && p.work.status === 200);
    expect(servedWhileDraining.length).toBeGreaterThan(2);
    // …every answer after that tells the client to go (503, or 200 closing the connection), and
    // once the listener is closed, new connections are refused. (Probes sent before the child
    // got to the signal are answered as usual.)
    for (const { ready, work } of probes.filter((p) => !p.afterDrainLogged)) {
      expect(ready.status === 200 || ready.status === 503 || refused(ready), `${ready.status ?? ready.error}`).toBe(true);
      expect(cleanAnswer(work) || refused(work), `${work.status ?? work.error}`).toBe(true);
    }
    for (const { ready, work } of afterDrain) {
      expect(ready.status === 503 || refused(ready), `${ready.status ?? ready.error}`).toBe(true);
      expect(cleanAnswer(work) || refused(work), `${work.status ?? work.error}`).toBe(true);
      if (work.status) expect(work.headers!.connection).toBe('close');
    }
    expect((await send(server.url, { method: 'GET', path: '/health', key }, new Agent())).error).toBe('ECONNREFUSED');

    // Every request of the load either completed normally or was refused cleanly.
    const failed = outcomes.filter((o) => !(cleanAnswer(o) || refused(o)));
    expect(failed.map((o) => `${o.call.method} ${o.call.path}: ${o.status ?? o.error}`)).toEqual([]);
    expect(outcomes.filter((o) => o.endedAt > signalledAt && o.status! < 300).length).toBeGreaterThan(0);
    expect(outcomes.length).toBeGreaterThan(30);

    // Every acknowledged payment was committed before the pool closed.
    const created = outcomes.filter((o) => o.status === 201).map((o) => JSON.parse(o.body!).data.id as string);
    expect(created.length).toBeGreaterThan(5);
    const stored = await database.db.kysely.selectFrom('payments').select('id').where('id', 'in', created).execute();
    expect(stored).toHaveLength(created.length);
    expect(server.output()).toContain('draining: readiness is off');
    expect(server.output()).toContain('"msg":"closed"');
  }, 60_000);

  it('while draining, readiness is 503 and work is still served, each response closing its connection', async () => {
    const app = await appOn(database);
    app.lifecycle.startDraining();
    const ready = await app.inject({ url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['content-type']).toMatch(/^application\/problem\+json/);
    const work = await app.inject({ url: '/v3/payments?per_page=1', headers: { authorization: `Bearer ${key}` } });
    expect(work.statusCode).toBe(200);
    expect(work.headers.connection).toBe('close');
    await app.close();
  });

  it('once closing, a request still arriving on an open connection gets a 503 problem that closes it', async () => {
    const app = await appOn(database);
    const inFlight = app.inject({ url: '/ready' });
    const closed = app.close();
    const late = await app.inject({ url: '/v3/payments', headers: { authorization: `Bearer ${key}` } });
    expect(late.statusCode).toBe(503);
    expect(late.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(late.headers.connection).toBe('close');
    expect(late.headers['retry-after']).toBeDefined();
    await inFlight;
    await closed;
  });
});
