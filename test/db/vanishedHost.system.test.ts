// A database host that vanishes without a TCP reset (a dropped route, a dead VM): the server
// reaches a PostgreSQL cluster of its own through a TCP relay in this process that stops passing
// bytes, either way, without closing anything. The machine's shared server is never touched.
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, findOrCreateTenant } from '../../src/auth/tenantQueries.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { card } from '../support/cards.ts';
import { send, type Call, type Outcome } from '../support/loadDriver.ts';
import { seed } from '../support/seedHelpers.ts';
import { startServer, type ServerProcess } from '../support/serverProcess.ts';
import { startTcpRelay, type TcpRelay } from '../support/tcpRelay.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwawayPostgres.ts';

const STATEMENT_TIMEOUT_MS = 3_000;
/** The statement limit plus "a few seconds": what any request may take while the host is gone. */
const ANSWER_BOUND_MS = STATEMENT_TIMEOUT_MS + 4_000;

/**
 * The kernel's timer on each established IPv4 connection to `port` (/proc/net/tcp): `keepalive`
 * with the seconds until its next probe, or what else runs (`none`, `retransmit`…).
 */
function timersOfConnectionsTo(port: number): string[] {
  const kinds = ['none', 'retransmit', 'keepalive', 'time-wait', 'zero-window'];
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length > 5 && Number.parseInt(f[2]!.split(':')[1]!, 16) === port && f[3] === '01')
    .map((f) => {
      const [kind, when] = f[5]!.split(':') as [string, string];
      const name = kinds[Number.parseInt(kind, 16)] ?? kind;
      // In clock ticks of 1/100 s.
      return name === 'keepalive' ? `keepalive in ${Math.ceil(Number.parseInt(when, 16) / 100)} s` : name;
    });
}

interface ExportRead {
  /** Bytes read so far. */
  bytes: number;
  /** Whether the closing line (`{"export":{"complete":true,…}}`) came. */
  complete(): boolean;
  /** Reading resumes (it is held once READ_FIRST bytes have come). */
  drain(): void;
  /** Settles when the response ended or was cut, with when (performance.now()). */
  ended: Promise<number>;
}

/** What an export has sent before it is held: well under way. */
const READ_FIRST = 256 * 1024;

/** An export read READ_FIRST bytes, then held (a slow reader), until drain(). */
function startExport(origin: string, key: string): Promise<ExportRead> {
  return new Promise((resolve, reject) => {
    let text = '';
    const request = httpRequest(new URL('/v3/payments/export', origin), { headers: { authorization: `Bearer ${key}`, accept: 'application/x-ndjson' } });
    request.on('error', reject);
    request.on('response', (response) => {
      if (response.statusCode !== 200) return reject(new Error(`export answered ${response.statusCode}`));
      let endedAt: (at: number) => void = () => {};
      const read: ExportRead = {
        bytes: 0,
        complete: () => text.includes('"complete":true'),
        drain: () => response.resume(),
        ended: new Promise((done) => (endedAt = done)),
      };
      response.setEncoding('utf8');
      let held = false;
      response.on('data', (chunk: string) => {
        read.bytes += Buffer.byteLength(chunk);
        // Only the tail matters (the closing line).
        text = (text + chunk).slice(-512);
        if (!held && read.bytes >= READ_FIRST) {
          held = true;
          response.pause();
          resolve(read);
        }
      });
      response.on('end', () => endedAt(performance.now()));
      response.on('error', () => endedAt(performance.now()));
      response.on('close', () => endedAt(performance.now()));
    });
    request.end();
  });
}

describe('a database host that vanishes without a reset', () => {
  let cluster: ThrowawayPostgres;
  let relay: TcpRelay;
  let server: ServerProcess;
  let key: string;
  let accounts: string[];
  let payments: string[];
  const agent = new Agent({ keepAlive: true });

  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    const db = openDatabase(cluster.url, { poolMax: 2 });
    try {
      await migrateToLatest(db.kysely, db.dialect);
      await seed(db, 'vanish', 5, 20_000);
      const tenant = await findOrCreateTenant(db.kysely, 'vanish');
      key = await createApiKey(db.kysely, tenant.id, ['read', 'write']);
      accounts = (await db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', tenant.id).where('status', '=', 'active').execute()).map(
        (r) => r.id,
      );
      payments = (await db.kysely.selectFrom('payments').select('id').where('tenant_id', '=', tenant.id).limit(20).execute()).map((r) => r.id);
    } finally {
      await db.close();
    }
    relay = await startTcpRelay(cluster.port);
    server = await startServer({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${relay.port}/postgres`,
      PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      PG_CONNECT_TIMEOUT_MS: '2000',
      PG_POOL_MAX: '8',
      LOG_LEVEL: 'warn',
    });
  }, 120_000);
  afterAll(async () => {
    agent.destroy();
    relay?.resume();
    await server?.stop();
    await relay?.close();
    await cluster?.destroy();
  }, 30_000);

  let n = 0;
  /** Lists, single reads and a write: what a client sends. */
  const calls = (): Call[] => {
    const i = n++;
    const reference = `vanish-${i}`;
    return [
      { method: 'GET', path: `/v3/payments?per_page=25&page=${1 + (i % 7)}&sort=-amount`, key },
      { method: 'GET', path: '/v3/payments?per_page=10&filter[status]=succeeded', key },
      { method: 'GET', path: `/v3/payments/${payments[i % payments.length]}`, key },
      { method: 'GET', path: `/v3/accounts/${accounts[i % accounts.length]}/payments?per_page=5`, key },
      { method: 'GET', path: '/v3/accounts', key },
      {
        method: 'POST',
        path: '/v3/payments',
        key,
        headers: { 'idempotency-key': `key-${reference}` },
        body: { account_id: accounts[i % accounts.length], amount: 100 + i, currency: 'EUR', reference, capture: true, card: card() },
      },
    ];
  };
  const describeOutcome = (o: Outcome) => `${o.call.method} ${o.call.path}: ${o.status ?? o.error} after ${Math.round(o.endedAt - o.startedAt)} ms`;

  it('keeps TCP keepalive on its connections, answers 503 within the statement limit plus a few seconds, ends an export in flight, and works again once the route is back', async () => {
    // Every pooled connection in use once, so the requests below meet connections opened before the cut.
    const warm = await Promise.all(
      Array.from({ length: 3 }, () => calls())
        .flat()
        .map((call) => send(server.url, call, agent)),
    );
    expect(warm.filter((o) => o.status !== 200 && o.status !== 201).map(describeOutcome)).toEqual([]);
    // Idle, every connection of the server's pool has its keepalive probe due within 10 s. Idle
    // once what the requests set off in the background (a key's last use, the fold) is answered:
    // meanwhile a connection with data in flight shows its retransmission timer instead.
    expect(timersOfConnectionsTo(relay.port).length).toBeGreaterThan(0);
    await expect.poll(() => timersOfConnectionsTo(relay.port).filter((t) => !/^keepalive in ([0-9]|10) s$/.test(t)), { timeout: 5_000 }).toEqual([]);
    const exported = await startExport(server.url, key);

    relay.blackhole();
    const cutAt = performance.now();
    exported.drain();
    const during = await Promise.all(calls().map((call) => send(server.url, call, agent, 60_000)));
    console.log(`host gone: ${during.map(describeOutcome).join('; ')}`);
    for (const o of during) {
      expect(o.status, describeOutcome(o)).toBe(503);
      expect(o.endedAt - o.startedAt, describeOutcome(o)).toBeLessThan(ANSWER_BOUND_MS);
      expect(o.headers!['retry-after']).toBeDefined();
      expect(JSON.parse(o.body!)).toMatchObject({ status: 503 });
    }
    // The export in flight is ended, without its closing line (a reader knows it is incomplete).
    const exportEndedAt = await Promise.race([exported.ended, sleep(30_000).then(() => Number.POSITIVE_INFINITY)]);
    console.log(`host gone: the export ended ${Math.round(exportEndedAt - cutAt)} ms after the cut, ${exported.bytes} bytes read`);
    expect(exportEndedAt - cutAt).toBeLessThan(ANSWER_BOUND_MS + STATEMENT_TIMEOUT_MS);
    expect(exported.complete()).toBe(false);
    // The process itself never waited on the database.
    const health = await send(server.url, { method: 'GET', path: '/health', key: '' }, agent);
    expect(health.status).toBe(200);
    expect(health.endedAt - health.startedAt).toBeLessThan(500);

    // The route is back: new connections work at once (the pool has let go of the dead ones).
    relay.resume();
    const backAt = performance.now();
    let first: Outcome | undefined;
    for (; performance.now() - backAt < 10_000; await sleep(100)) {
      first = await send(server.url, { method: 'GET', path: '/v3/payments?per_page=1', key }, agent);
      if (first.status === 200) break;
    }
    expect(first?.status, first && describeOutcome(first)).toBe(200);
    console.log(`route back: answered again ${Math.round(performance.now() - backAt)} ms later`);
    const after = await Promise.all(
      Array.from({ length: 2 }, () => calls())
        .flat()
        .map((call) => send(server.url, call, agent)),
    );
    expect(after.filter((o) => o.status !== 200 && o.status !== 201).map(describeOutcome)).toEqual([]);
    expect(server.child.exitCode).toBeNull();
  }, 120_000);
});
