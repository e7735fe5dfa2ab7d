import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { TEST_DIALECT } from '../support/testDatabase.ts';
import { seed } from '../support/seedHelpers.ts';
import { buildApp } from '../../src/http/buildApp.ts';
import type { Db } from '../../src/db/database.ts';
import { recountTenant } from '../../src/lists/counters/listCounts.ts';

/**
 * The statement timeout of the app under test: a third of what the slow list takes here (the
 * machine's speed varies several times over with its load), and no less than this.
 */
const LEAST_LIMIT_MS = 20;
/** Seeded payments, copied this many times over: enough rows that counting them row by row is slow. */
const SEEDED = 50;
const COPIES = 4000;
/**
 * No counts cover a card's last digits: the total is a count(*) over the copies (all given these
 * digits), each row read for its account, which the last-four index does not carry (it carries
 * amount, status, currency and brand: migration 0027). An account filter, not `amount ≥ 0`: that
 * list is now counted in the index alone (lists/sql/keyedFilters.ts), no longer slow.
 */
const slowList = (accounts: string[]) => `/v3/payments?filter[card_last4]=0000&filter[account_id]=${accounts.join(',')}`;
/** Quick, but not bounded by construction (two statuses are filtered row by row): it is read on a reader. */
const QUICK_READER_LIST = '/v3/payments?filter[status]=succeeded,failed&per_page=5';
/** Bounded by construction (the whole list's maintained count, its index with LIMIT): read inline. */
const BOUNDED_PAGE = '/v3/payments?per_page=5';
/**
 * Bounded too: a range on the sort's own column, its total from the range's bucket counts and the
 * rows of at most its two edge buckets, its page a stretch of the sort's index (decision 0102).
 */
const BOUNDED_RANGES = [
  '/v3/payments?filter[created_at][gte]=2026-06-01T00:00:00Z&filter[created_at][lt]=2026-10-01T00:00:00Z&per_page=5',
  '/v3/payments?filter[created_at][gte]=2026-06-01T00:00:00Z&filter[status]=succeeded&sort=-created_at&per_page=5',
  '/v3/payments?filter[amount][gte]=1000&sort=amount&per_page=5',
];

describe.runIf(TEST_DIALECT === 'sqlite')('SQLite: a read past the statement timeout answers 503 database-timeout, holding nothing', () => {
  let t: TestContext;
  let key: string;
  let db: Db;
  let app: Awaited<ReturnType<typeof buildApp>>;
  /** How long the slow list takes with no limit, its rows cached by the OS: measured in beforeAll. */
  let listMs: number;
  let limitMs: number;
  /** The slow list, under the tenant's accounts: every copy read. */
  let SLOW_LIST: string;

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await t.tenant('slow');
    key = tenant.key;
    await seed(t.database.db, 'slow', 2, SEEDED);
    // Copies of the seeded rows under new ids, in one statement: seeding 50,000 payments one by
    // one takes minutes here. Only a list whose total is counted from the rows reads them.
    const kysely = t.database.db.kysely;
    const columns = (await sql<{ name: string }>`select name from pragma_table_info('payments')`.execute(kysely)).rows.map((r) => r.name);
    const values = columns.map((c) => (c === 'id' ? `id || '_' || copy` : c === 'card_last4' ? `'0000'` : c)).join(', ');
    // The counts and buckets rebuilt from the rows, as after a bulk load: the list's total is
    // counted row by row, but any other list of this tenant a later test reads stays exact.
    await kysely.transaction().execute(async (trx) => {
      await sql
        .raw(
          `with recursive copies(copy) as (select 1 union all select copy + 1 from copies where copy < ${COPIES}) ` +
            `insert into payments (${columns.join(', ')}) select ${values} from payments, copies`,
        )
        .execute(trx);
      await recountTenant(trx, t.database.db.dialect, tenant.id);
    });
    const accounts = (await t.get('/v3/accounts?per_page=10', key)).body.data as Array<{ id: string }>;
    SLOW_LIST = slowList(accounts.map((a) => a.id));
    // The slow list answered in full, with no limit (the test app's database has none): the
    // quickest of three, the first reading the file into the OS's cache.
    listMs = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      expect((await t.get(SLOW_LIST, key)).status).toBe(200);
      listMs = Math.min(listMs, performance.now() - started);
    }
    limitMs = Math.max(LEAST_LIMIT_MS, Math.floor(listMs / 3));
    db = t.database.openAnother({ statementTimeoutMs: limitMs });
    app = await buildApp({ config: { publicUrl: undefined, trustProxy: false, logLevel: 'silent', cardFingerprintSecret: 'test-secret' }, db, logger: false });
    // Its readers' threads start with its first read, which may take longer than the limit here.
    for (let tries = 0; (await get(QUICK_READER_LIST)).statusCode !== 200 && tries < 100; tries++) await sleep(100);
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await t.close();
  });

  const get = (url: string) => app.inject({ url, headers: { authorization: `Bearer ${key}` } });

  it("copies its rows with counts rebuilt, so the tenant's counted total is its rows' count", async () => {
    const { n } = await t.database.db.kysely
      .selectFrom('payments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect((await t.get('/v3/payments?per_page=1', key)).body.meta.total).toBe(Number(n));
  });

  it('the list is slow: answering it takes several times the limit', () => {
    expect(listMs).toBeGreaterThanOrEqual(3 * limitMs);
  });

  it('answers 503 database-timeout with Retry-After, while the event loop and another request go on', async () => {
    // The longest the event loop stood still while the slow list was being answered.
    let longestStall = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestStall = Math.max(longestStall, now - last);
      last = now;
    }, 5);
    try {
      const slow = get(SLOW_LIST);
      const other = get('/v3/payments?per_page=5');
      const [slowResponse, otherResponse] = await Promise.all([slow, other]);
      expect(slowResponse.statusCode).toBe(503);
      expect(slowResponse.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(slowResponse.headers['retry-after']).toMatch(/^\d+$/);
      expect(slowResponse.json()).toMatchObject({ status: 503, type: expect.stringMatching(/database-timeout$/) });
      expect(otherResponse.statusCode).toBe(200);
      expect(otherResponse.json().data).toHaveLength(5);
    } finally {
      clearInterval(ticker);
    }
    // Reading on the request thread would have held it for the whole statement.
    expect(longestStall).toBeLessThan(listMs * 0.75);
  });

  it('keeps answering slow lists with 503 (never waits past the limit), and the database serves reads and writes after', async () => {
    // More slow lists than there are readers and abandoned readers together: the ones finding
    // no reader wait at most the limit too.
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 6 }, () => get(SLOW_LIST)));
    for (const response of responses) {
      expect(response.statusCode).toBe(503);
      expect(response.json().type).toMatch(/database-timeout$/);
    }
    // Generous: six requests at the limit, on a machine that may be busy.
    expect(performance.now() - started).toBeLessThan(Math.max(10_000, listMs * 3));
    // The readers given up on are still counting: reads that go to a reader wait for one, and
    // answer 503 at the limit, until they are done.
    await expect.poll(async () => (await get(QUICK_READER_LIST)).statusCode, { timeout: 60_000, interval: 100 }).toBe(200);
    const created = await app.inject({
      method: 'POST',
      url: '/v3/accounts',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { name: 'after', email: 'after@example.com', currency: 'USD' },
    });
    expect(created.statusCode).toBe(201);
    const { id } = created.json().data;
    expect((await get(`/v3/accounts/${id}`)).json().data).toMatchObject({ id, name: 'after' });
    const page = await get('/v3/payments?per_page=5');
    expect(page.statusCode).toBe(200);
    expect(page.json().data).toHaveLength(5);
  }, 120_000);

  it('serves bounded reads (the key, a page placed by counts, a range on the sort’s column, a record by id) while every reader is stuck in a slow list', async () => {
    await expect.poll(async () => (await get(QUICK_READER_LIST)).statusCode, { timeout: 60_000, interval: 100 }).toBe(200);
    const { id } = (await get(BOUNDED_PAGE)).json().data[0];
    // Six slow lists: two readers given up on at the limit, two more started and given up on at
    // twice the limit, the rest finding none; once all have answered, all four threads are still
    // inside a slow count(*) for about the list's time (at least twice the limit) more.
    const slow = await Promise.all(Array.from({ length: 6 }, () => get(SLOW_LIST)));
    for (const response of slow) expect(response.statusCode).toBe(503);
    const [onReader, page, record, ...ranges] = await Promise.all([
      get(QUICK_READER_LIST),
      get(BOUNDED_PAGE),
      get(`/v3/payments/${id}`),
      ...BOUNDED_RANGES.map(get),
    ]);
    // A read sent to a reader now finds none within the limit...
    expect(onReader.statusCode).toBe(503);
    // ...while the bounded ones run on the request's own connection.
    expect(page.statusCode).toBe(200);
    expect(page.json().data).toHaveLength(5);
    expect(record.statusCode).toBe(200);
    expect(record.json().data.id).toBe(id);
    for (const [i, range] of ranges.entries()) {
      expect(range.statusCode, BOUNDED_RANGES[i]).toBe(200);
      expect(range.json().data.length, BOUNDED_RANGES[i]).toBeGreaterThan(0);
    }
  }, 120_000);
});
