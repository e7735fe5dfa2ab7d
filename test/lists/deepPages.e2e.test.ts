import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn, createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';
import { card } from '../support/cards.ts';
import { skipInHops } from '../../src/lists/sql/pageStatements.ts';
import { parseListQuery, type RawListQuery } from '../../src/lists/request/parseListQuery.ts';
import { parseQueryString } from '../../src/http/parseQueryString.ts';
import { paymentListSpec } from '../../src/payments/paymentListSpec.ts';
import { TEST_DIALECT } from '../support/testDatabase.ts';

const path = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

describe('deep pages: any page at any depth, exact and found without walking', () => {
  let t: TestContext;
  let key: string;
  let accountId: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('deep')).key;
    await seed(t.database.db, 'deep', 2, 9000);
    accountId = (await t.get('/v3/accounts?per_page=1', key)).body.data[0].id;
  });
  afterAll(() => t.close());

  const whole = async (query: string) =>
    (await t.get(`/v3/payments?${query}&per_page=5000`, key)).body.data.concat((await t.get(`/v3/payments?${query}&per_page=5000&page=2`, key)).body.data);

  it.each(['', 'sort=-amount', 'sort=amount,-created_at', 'filter[status]=succeeded,failed&sort=-created_at'])(
    'a page reached by links.next (%s) equals the page a client that never walked there gets',
    async (query) => {
      const sibling = await appOn(t.database);
      try {
        const first = await t.get(`/v3/payments?${query}&per_page=7&page=40`, key);
        const next = await t.get(path(first.body.links.next), key);
        const cold = await sibling.inject({ url: path(first.body.links.next), headers: { authorization: `Bearer ${key}` } });
        expect(next.body.data.length).toBe(7);
        expect(next.body.data).toEqual(JSON.parse(cold.body).data);
        expect(next.body.meta).toEqual(JSON.parse(cold.body).meta);
      } finally {
        await sibling.close();
      }
    },
  );

  it.each([
    ['', 'buckets'],
    ['sort=-amount', 'buckets'],
    ['sort=amount,-created_at', 'buckets'],
    ['filter[status]=succeeded,failed&sort=-created_at', 'buckets'],
    ['filter[status]=succeeded&sort=amount', 'buckets'],
    ['filter[account_id]=ACCOUNT&sort=-amount', 'buckets'],
    // A range of whole amount classes (ends 0, a power of ten or open) is placed by their buckets,
    // and so is one off the class edges (amountClassRanges.ts: the rows between counted as read),
    // on the whole list or one currency; with another filter a range goes row by row.
    ['filter[amount][gte]=0', 'buckets'],
    ['filter[status]=succeeded&filter[amount][gte]=0&filter[amount][lte]=99999999998', TEST_DIALECT === 'sqlite' ? 'skip-hops' : 'deferred-join'],
  ])('answers deep pages of %s through %s, equal to the slice of the whole list, from either end', async (raw, strategy) => {
    const query = raw.replace('ACCOUNT', accountId);
    const all = await whole(query);
    const perPage = 10;
    const lastPage = Math.ceil(all.length / perPage);
    expect(all.length).toBeGreaterThan(2 * 2000 + 4 * perPage);
    // 2001 rows from the start, then from the end; and the middle.
    for (const page of [202, lastPage - 201, Math.floor(lastPage / 2)]) {
      const got = await t.get(`/v3/payments?${query}&per_page=${perPage}&page=${page}`, key);
      expect(String(got.headers['x-page-strategy']).replace(/-from-end$/, '')).toBe(strategy);
      expect(got.body.data).toEqual(all.slice((page - 1) * perPage, page * perPage));
      expect(got.body.meta).toMatchObject({
        current_page: page,
        from: (page - 1) * perPage + 1,
        to: Math.min(page * perPage, all.length),
        total: all.length,
        last_page: lastPage,
      });
    }
    const last = await t.get(`/v3/payments?${query}&per_page=${perPage}&page=${lastPage}`, key);
    expect(last.body.data).toEqual(all.slice((lastPage - 1) * perPage));
    const past = await t.get(`/v3/payments?${query}&per_page=${perPage}&page=${lastPage + 1}`, key);
    expect(past.headers['x-page-strategy']).toBe('past-end');
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toMatchObject({ from: null, to: null, total: all.length, last_page: lastPage });
  });

  it.each([
    '',
    'sort=-amount',
    'sort=amount,-created_at',
    'filter[account_id]=ACCOUNT',
    'filter[status]=succeeded&sort=amount',
    'filter[created_at][gte]=2026-08-01T00:00:00Z&filter[created_at][lt]=2026-09-01T00:00:00Z&sort=-created_at',
  ])('answers the first pages of %s past their first rows (PostgreSQL skips them in the index alone) equal to the slice of the whole list', async (raw) => {
    const query = raw.replace('ACCOUNT', accountId);
    const all = await whole(query);
    const perPage = 10;
    expect(all.length).toBeGreaterThan(1000);
    for (const offset of [90, 100, 101, 990, Math.min(1990, all.length - 5), all.length - 1, all.length, all.length + 10]) {
      if (offset >= 2000) continue;
      const got = await t.get(`/v3/payments?${query}&per_page=${perPage}&page=${offset / perPage + 1}`, key);
      if (offset % perPage !== 0) {
        // Not a page boundary: the same rows by a page size that starts there.
        const odd = await t.get(`/v3/payments?${query}&per_page=${offset}&page=2`, key);
        expect(odd.body.data, `${query} from ${offset}`).toEqual(all.slice(offset, 2 * offset));
        continue;
      }
      expect(got.headers['x-page-strategy'], `${query} page ${offset / perPage + 1}`).toBe(offset >= all.length ? 'past-end' : 'offset');
      expect(got.body.data, `${query} page ${offset / perPage + 1}`).toEqual(all.slice(offset, offset + perPage));
      expect(got.body.meta.total).toBe(all.length);
    }
  });

  it.each(['', 'sort=-amount', 'sort=amount,-created_at', 'filter[status]=succeeded,failed&sort=-created_at'])(
    'skipping in hops (%s) lands on the row OFFSET would, and says so past the end',
    async (query) => {
      const spec = paymentListSpec;
      const parsed = parseListQuery(spec, parseQueryString(query) as RawListQuery);
      const all = (await t.get(`/v3/payments?${query}&per_page=5000`, key)).body.data as Array<{ id: string }>;
      const scope = { tenantId: (await t.database.db.kysely.selectFrom('tenants').select('id').where('name', '=', 'deep').executeTakeFirstOrThrow()).id };
      for (const offset of [1, 96, 97, 98, 1000, all.length]) {
        const boundary = await skipInHops(t.database.db.kysely, 'payments', scope, parsed, offset, 97);
        expect(boundary?.at(-1)).toBe(all[offset - 1].id);
      }
      const total = (await t.get(`/v3/payments?${query}&per_page=1`, key)).body.meta.total;
      expect(await skipInHops(t.database.db.kysely, 'payments', scope, parsed, total + 1, 97)).toBeNull();
    },
  );

  it('gives a walker of the default order every record once when records are only created meanwhile (they land at the end)', async () => {
    const other = await createTestApp();
    try {
      const w = await other.tenant('walker');
      await seed(other.database.db, 'walker', 3, 95);
      const account = (await other.get('/v3/accounts?per_page=1', w.key)).body.data[0].id;
      const before = ((await other.get('/v3/payments?per_page=5000', w.key)).body.data as Array<{ id: string }>).map((p) => p.id);
      const seen: string[] = [];
      let url: string | null = '/v3/payments?per_page=10';
      for (let pages = 1; url; pages++) {
        const { body } = await other.get(path(url), w.key);
        seen.push(...body.data.map((p: { id: string }) => p.id));
        if (pages === 3) {
          for (let i = 0; i < 4; i++) await other.send('POST', '/v3/payments', w.key, { account_id: account, amount: 100 + i, currency: 'USD', card: card() });
        }
        url = body.links.next;
      }
      expect(seen.slice(0, before.length)).toEqual(before);
      expect(seen.length).toBe(before.length + 4);
    } finally {
      await other.close();
    }
  });

  it('answers a page as OFFSET does at request time when rows before it have gone: later rows move up', async () => {
    const other = await createTestApp();
    try {
      const w = await other.tenant('shift');
      await seed(other.database.db, 'shift', 3, 40);
      const first = await other.get('/v3/payments?per_page=10&page=2', w.key);
      const { kysely } = other.database.db;
      // Straight in the table (the API has no payment deletion); counts kept in step as a write would.
      const gone = first.body.data.slice(0, 2).map((p: { id: string }) => p.id);
      await kysely.transaction().execute(async (trx) => {
        await trx.deleteFrom('payments').where('id', 'in', gone).execute();
        const { recountTenant } = await import('../../src/lists/counters/listCounts.ts');
        await recountTenant(
          trx,
          other.database.db.dialect,
          (await trx.selectFrom('tenants').select('id').where('name', '=', 'shift').executeTakeFirstOrThrow()).id,
        );
      });
      const all = (await other.get('/v3/payments?per_page=5000', w.key)).body.data;
      const again = await other.get('/v3/payments?per_page=10&page=2', w.key);
      expect(again.body.data).toEqual(all.slice(10, 20));
      expect(again.body.meta.total).toBe(38);
    } finally {
      await other.close();
    }
  });
});
