import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/buildApp.ts';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { card } from '../support/cards.ts';
import { TEST_DIALECT } from '../support/testDatabase.ts';

describe('Prometheus metrics at /metrics', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('metrics')).key;
  });
  afterAll(() => t.close());

  const metrics = async () => {
    const response = await t.app.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.body;
  };

  it('counts requests and latency per route pattern, method and status class — never raw ids', async () => {
    await t.get('/v3/payments?per_page=2', key);
    await t.get('/v3/payments/pay_01ARZ3NDEKTSV4RRFFQ69G5FAV', key); // 404
    await t.get('/v3/payments/pay_01ARZ3NDEKTSV4RRFFQ69G5FAW', key); // 404
    await t.app.inject({ url: '/v3/nowhere/at/all' });
    const text = await metrics();
    expect(text).toContain('http_requests_total{method="GET",route="/v3/payments",status_class="2xx"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/v3/payments/:payment",status_class="4xx"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="unmatched",status_class="4xx"} 1');
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/v3\/payments",status_class="2xx"\} \d/);
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/v3/payments/:payment",status_class="4xx"} 2');
    expect(text).not.toContain('pay_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(text).not.toContain('nowhere');
  });

  it('reports server errors, database pool use, event-loop delay and process memory', async () => {
    const text = await metrics();
    expect(text).toContain('# TYPE http_server_errors_total counter');
    expect(text).toContain('# TYPE db_unavailable_errors_total counter');
    expect(text).toMatch(/^db_pool_connections\{state="total"\} \d+$/m);
    expect(text).toMatch(/^db_pool_connections\{state="idle"\} \d+$/m);
    expect(text).toMatch(/^db_pool_connections\{state="waiting"\} 0$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds [0-9.e-]+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+$/m);
  });

  it('counts SQLite write transactions and the commits they took: creates sent together commit together', async () => {
    const value = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    const before = await metrics();
    if (TEST_DIALECT !== 'sqlite') {
      expect(before).not.toContain('sqlite_commits_total');
      return;
    }
    const accountId = (await t.send('POST', '/v3/accounts', key, { name: 'Metered', email: 'metered@example.com', currency: 'EUR' })).body.data.id;
    const creates = await Promise.all(
      Array.from({ length: 12 }, () => t.send('POST', '/v3/payments', key, { account_id: accountId, amount: 100, currency: 'EUR', card: card() })),
    );
    expect(creates.map((c) => c.status)).toEqual(Array(12).fill(201));
    const after = await metrics();
    const transactions = value(after, 'sqlite_write_transactions_total') - value(before, 'sqlite_write_transactions_total');
    const commits = value(after, 'sqlite_commits_total') - value(before, 'sqlite_commits_total');
    expect(transactions).toBeGreaterThanOrEqual(13);
    expect(commits).toBeGreaterThan(0);
    expect(commits).toBeLessThan(transactions);
  });

  it('needs no key, and is gone with METRICS=off', async () => {
    const off = await buildApp({
      config: { publicUrl: undefined, trustProxy: false, logLevel: 'silent', cardFingerprintSecret: 'x' },
      db: t.database.db,
      logger: false,
      metrics: false,
    });
    expect((await off.inject({ url: '/metrics' })).statusCode).toBe(404);
    await off.close();
  });
});

describe('request ids', () => {
  it('appear in the log lines of the request they belong to, and in its response', async () => {
    const t = await createTestApp();
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = await buildApp({
      config: { publicUrl: undefined, trustProxy: false, logLevel: 'info', cardFingerprintSecret: 'x' },
      db: t.database.db,
      logger: { level: 'info', stream },
    });
    try {
      const response = await app.inject({ url: '/v3/payments', headers: { 'x-request-id': 'trace-log-42' } });
      expect(response.statusCode).toBe(401);
      expect(response.headers['x-request-id']).toBe('trace-log-42');
      const mine = lines.filter((l) => l.reqId === 'trace-log-42');
      expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    } finally {
      await app.close();
      await t.close();
    }
  });
});
