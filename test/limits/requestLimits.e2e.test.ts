import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, appOn, type TestContext } from '../support/testApp.ts';
import { TEST_DIALECT, TEST_PG_URL } from '../support/testDatabase.ts';
import { seed } from '../support/seedHelpers.ts';
import { buildApp } from '../../src/http/buildApp.ts';
import { DEFAULT_LIMITS } from '../../src/config/loadConfig.ts';
import { QUERY_LIMITS } from '../../src/http/parseQueryString.ts';
import { MAX_FILTER_VALUES } from '../../src/lists/request/listQuerySchema.ts';
import type { Db } from '../../src/db/database.ts';

function expectProblem(response: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.json()).toMatchObject({ status });
  return response.json();
}

describe('every resource a request can consume is bounded, and going past a bound is a clear problem', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('limits')).key;
    await seed(t.database.db, 'limits', 3, 30);
  });
  afterAll(() => t.close());
  const get = (url: string) => t.app.inject({ url, headers: { authorization: `Bearer ${key}` } });

  it(`a body over ${DEFAULT_LIMITS.bodyLimit} bytes is a 413 problem`, async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x', email: 'a@b.co', currency: 'USD', metadata: { k: 'v'.repeat(DEFAULT_LIMITS.bodyLimit) } }),
    });
    const body = expectProblem(response, 413);
    expect(body.detail).toContain(String(DEFAULT_LIMITS.bodyLimit));
    expect(await t.database.db.kysely.selectFrom('accounts').select('id').where('name', '=', 'x').execute()).toEqual([]);
  });

  it('the largest valid body (50 metadata values of 500 escaped characters) is still accepted', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key_${i}`.padEnd(40, 'k'), '\u00e9'.repeat(500)]));
    const payload = JSON.stringify({ name: 'big', email: 'big@example.com', currency: 'USD', metadata }).replace(/\u00e9/g, '\\u00e9');
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode).toBe(201);
  });

  it('a body nested 40,000 levels deep (within the size limit) is a 422 naming the field, not a crash', async () => {
    const payload = `{"name":"x","email":"a@b.co","currency":"USD","metadata":${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}}`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload,
    });
    expect(expectProblem(response, 422).errors).toHaveProperty(['metadata.a']);
    expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200);
  });

  it('text holding U+0000 (which PostgreSQL cannot store) is a 422 naming the field, in a query or a body (found by the fuzzer)', async () => {
    expect(expectProblem(await get('/v3/accounts?filter[email]=%00'), 422).errors).toEqual({
      'filter[email]': ['must not contain the NUL character (U+0000)'],
    });
    expect(expectProblem(await get('/v3/payments?filter[reference]=a%00b&sort=amount'), 422).errors).toHaveProperty(['filter[reference]']);
    const post = (url: string, payload: unknown) =>
      t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    expect(expectProblem(await post('/v3/accounts', { name: 'a\u0000b', email: 'a@b.co', currency: 'USD' }), 422).errors).toEqual({
      name: ['must not contain the NUL character (U+0000)'],
    });
    expect(
      expectProblem(await post('/v3/accounts', { name: 'ok', email: 'a@b.co', currency: 'USD', metadata: { 'k\u0000': 'v' } }), 422).errors,
    ).toHaveProperty(['metadata.k\u0000']);
    const account = (await t.app.inject({ url: '/v3/accounts?per_page=1', headers: { authorization: `Bearer ${key}` } })).json().data[0].id;
    const payment = await post('/v3/payments', {
      account_id: account,
      amount: 5,
      currency: 'USD',
      reference: 'r\u0000',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvc: '123' },
    });
    expect(expectProblem(payment, 422).errors).toEqual({ reference: ['must not contain the NUL character (U+0000)'] });
  });

  it(`a query string over ${QUERY_LIMITS.maxLength} characters is a 414 problem`, async () => {
    const body = expectProblem(await get(`/v3/payments?note=${'a'.repeat(QUERY_LIMITS.maxLength)}`), 414);
    expect(body.detail).toContain(String(QUERY_LIMITS.maxLength));
  });

  it(`more than ${QUERY_LIMITS.parameterLimit} parameters is a 422 naming the query, not a silently shorter query`, async () => {
    const query = Array.from({ length: QUERY_LIMITS.parameterLimit + 1 }, (_, i) => `p${i}=1`).join('&');
    const body = expectProblem(await get(`/v3/payments?${query}`), 422);
    expect(body.errors.query[0]).toContain(String(QUERY_LIMITS.parameterLimit));
    // exactly at the bound is fine
    const atLimit = Array.from({ length: QUERY_LIMITS.parameterLimit }, (_, i) => `p${i}=1`).join('&');
    expect((await get(`/v3/payments?${atLimit}`)).statusCode).toBe(200);
  });

  it('brackets nested deeper than the bound are a 422 naming the parameter, not a flattened key', async () => {
    const body = expectProblem(await get('/v3/payments?filter[amount][gte][x][y]=1'), 422);
    expect(Object.keys(body.errors)).toEqual(['filter[amount][gte][x][y]']);
    expect(body.errors['filter[amount][gte][x][y]'][0]).toMatch(/nests more than 3/);
  });

  it(`a key repeated more than ${QUERY_LIMITS.arrayLimit} times is a 422 naming it`, async () => {
    const query = Array.from({ length: QUERY_LIMITS.arrayLimit + 1 }, () => 'sort[]=amount').join('&');
    const body = expectProblem(await get(`/v3/payments?${query}`), 422);
    expect(Object.keys(body.errors)).toEqual(['sort[]']);
  });

  it('an array index past the bound is a 422, not an object with a numeric key', async () => {
    const body = expectProblem(await get('/v3/payments?x[999]=1'), 422);
    expect(body.errors.query[0]).toMatch(/Array limit/);
  });

  it(`a filter listing more than ${MAX_FILTER_VALUES} values is a 422 naming the filter`, async () => {
    const values = Array.from({ length: MAX_FILTER_VALUES + 1 }, (_, i) => String(1000 + i)).join(',');
    const body = expectProblem(await get(`/v3/payments?filter[card_last4]=${values}`), 422);
    expect(body.errors).toEqual({ 'filter[card_last4]': [`lists ${MAX_FILTER_VALUES + 1} values; at most ${MAX_FILTER_VALUES} are accepted`] });
    const atLimit = Array.from({ length: MAX_FILTER_VALUES }, (_, i) => String(1000 + i)).join(',');
    expect((await get(`/v3/payments?filter[card_last4]=${atLimit}`)).statusCode).toBe(200);
  });

  it('a request not received in full within the request timeout is a 408 problem, and the server goes on', async () => {
    const app = await appOn(t.database, { limits: { requestTimeoutMs: 300 } });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          // Headers promise a body that never comes (a slow-loris client).
          socket.write(
            `POST /v3/accounts HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"na`,
          );
        });
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 408/);
      expect(raw).toContain('application/problem+json');
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 408 });
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

// PostgreSQL bounds one statement's time and the wait for a connection (SQLite's statement timeout:
// sqliteStatementTimeout.e2e.test.ts).
describe.runIf(TEST_DIALECT === 'postgres')('PostgreSQL: statement timeout and pool acquire timeout answer 503', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('busy')).key;
    await seed(t.database.db, 'busy', 2, 20);
  });
  afterAll(() => t.close());

  async function appWith(db: Db) {
    return buildApp({ config: { publicUrl: undefined, trustProxy: false, logLevel: 'silent', cardFingerprintSecret: 'test-secret' }, db, logger: false });
  }

  it('a statement running past statement_timeout is cancelled and answered 503 with Retry-After', async () => {
    const db = t.database.openAnother({ poolMax: 2, statementTimeoutMs: 150 });
    const app = await appWith(db);
    const locker = new pg.Client({ connectionString: TEST_PG_URL });
    await locker.connect();
    try {
      const schema = (await db.kysely.selectNoFrom((eb) => eb.fn<string>('current_schema', []).as('s')).executeTakeFirstOrThrow()).s;
      // Another session holds the table, so the list's statement waits until the timeout cuts it off.
      await locker.query('begin');
      await locker.query(`lock table ${schema}.payments in access exclusive mode`);
      const response = await app.inject({ url: '/v3/payments', headers: { authorization: `Bearer ${key}` } });
      const body = expectProblem(response, 503);
      expect(response.headers['retry-after']).toMatch(/^\d+$/);
      expect(body.detail).toMatch(/took too long/);
      await locker.query('rollback');
      expect((await app.inject({ url: '/v3/payments', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
    } finally {
      await locker.end();
      await app.close();
      await db.close();
    }
  });

  it('a request finding every pooled connection taken waits at most the acquire timeout, then 503', async () => {
    const db = t.database.openAnother({ poolMax: 1, connectionTimeoutMs: 200 });
    const app = await appWith(db);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const taken = new Promise<void>((r) => (holding = r));
    const holder = db.kysely.connection().execute(async () => {
      holding();
      await held;
    });
    try {
      await taken;
      const response = await app.inject({ url: '/v3/payments', headers: { authorization: `Bearer ${key}` } });
      expectProblem(response, 503);
      expect(response.headers['retry-after']).toMatch(/^\d+$/);
      release();
      await holder;
      expect((await app.inject({ url: '/v3/payments', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
    } finally {
      release();
      await app.close();
      await db.close();
    }
  });
});
