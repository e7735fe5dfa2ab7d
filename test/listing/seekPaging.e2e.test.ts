import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn, createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';
import { card } from '../support/cards.ts';
import { DEFERRED_JOIN_FROM } from '../../src/listing/listPageQueries.ts';
import { skipInHops } from '../../src/listing/fetchListPage.ts';
import { parseListQuery, type RawListQuery } from '../../src/listing/parseListQuery.ts';
import { parseQueryString } from '../../src/http/parseQueryString.ts';
import { paymentListSpec } from '../../src/payments/paymentListSpec.ts';
import { TEST_DIALECT } from '../support/testDatabase.ts';
import { redisBoundaryCache } from '../../src/pagination/boundaryCache.ts';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

const path = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

describe('deep pages: seek while walking, deferred join when cold', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('deep')).key;
    await seed(t.database.db, 'deep', 6, 3000);
  });
  afterAll(() => t.close());

  it.each(['', 'sort=-amount', 'sort=amount,-created_at', 'filter[status]=succeeded,failed&sort=-created_at'])(
    'a page reached by links.next (%s) is found by seek and equals the page OFFSET gives',
    async (query) => {
      const sibling = await appOn(t.database); // same data, a boundary cache that never saw page 40
      try {
        const first = await t.get(`/v3/payments?${query}&per_page=7&page=40`, key);
        expect(first.headers['x-page-strategy']).toBe('offset');
        const next = await t.get(path(first.body.links.next), key);
        expect(next.headers['x-page-strategy']).toBe('seek');
        const cold = await sibling.inject({ url: path(first.body.links.next), headers: { authorization: `Bearer ${key}` } });
        expect(cold.headers['x-page-strategy']).toBe('offset');
        expect(next.body.data.length).toBe(7);
        expect(next.body.data).toEqual(JSON.parse(cold.body).data);
        expect(next.body.meta).toEqual(JSON.parse(cold.body).meta);
      } finally {
        await sibling.close();
      }
    },
  );

  it('answers a cold deep page by deferred join (PostgreSQL) or skip hops (SQLite), equal to what the walk gives', async () => {
    const perPage = 10;
    const page = DEFERRED_JOIN_FROM / perPage + 41;
    const cold = await t.get(`/v3/payments?sort=-amount&per_page=${perPage}&page=${page}`, key);
    expect(cold.headers['x-page-strategy']).toBe(TEST_DIALECT === 'sqlite' ? 'skip-hops' : 'deferred-join');
    const all = await t.get('/v3/payments?sort=-amount&per_page=5000', key);
    expect(cold.body.data).toEqual(all.body.data.slice((page - 1) * perPage, page * perPage));
    expect(cold.body.meta).toMatchObject({ current_page: page, from: (page - 1) * perPage + 1, total: 3000 });
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
      expect(await skipInHops(t.database.db.kysely, 'payments', scope, parsed, all.length + 1, 97)).toBeNull();
    },
  );

  it('gives a walker every record once when records are created and deleted behind it', async () => {
    const other = await createTestApp();
    try {
      const w = await other.tenant('walker');
      await seed(other.database.db, 'walker', 3, 95);
      const accountId = (await other.get('/v3/accounts?per_page=1', w.key)).body.data[0].id;
      const before = new Set(((await other.get('/v3/payments?per_page=5000', w.key)).body.data as Array<{ id: string }>).map((p) => p.id));
      const seen: string[] = [];
      let url: string | null = '/v3/payments?per_page=10';
      let pages = 0;
      while (url) {
        const { body, headers } = await other.get(path(url), w.key);
        if (pages > 0) expect(headers['x-page-strategy']).toBe('seek');
        seen.push(...body.data.map((p: { id: string }) => p.id));
        pages += 1;
        if (pages === 3) {
          // New payments land after the boundary (oldest first); two already-read ones vanish
          // before it (straight in the table: the API has no payment deletion).
          for (let i = 0; i < 4; i++) await other.send('POST', '/v3/payments', w.key, { account_id: accountId, amount: 100 + i, currency: 'USD', card: card() });
          const { kysely } = other.database.db;
          const victim = await kysely.selectFrom('payments').select('id').where('id', 'in', seen.slice(0, 5)).orderBy('id').limit(2).execute();
          await kysely.deleteFrom('payments').where('id', 'in', victim.map((v) => v.id)).execute();
        }
        url = body.links.next;
      }
      expect(new Set(seen).size).toBe(seen.length); // nothing twice
      for (const id of before) {
        expect(seen.includes(id)).toBe(true); // nothing that existed before was missed
      }
      expect(seen.length).toBe(before.size + 4);
    } finally {
      await other.close();
    }
  });

  it('shares boundaries between instances through Redis, so the next page seeks on any of them', async () => {
    const redis = new Redis('redis://127.0.0.1:6379');
    const boundaries = redisBoundaryCache(redis, `test:${randomBytes(4).toString('hex')}:`);
    const a = await appOn(t.database, { boundaries });
    const b = await appOn(t.database, { boundaries });
    try {
      const headers = { authorization: `Bearer ${key}` };
      const first = await a.inject({ url: '/v3/payments?sort=-amount&per_page=9&page=12', headers });
      const next = await b.inject({ url: path(first.json().links.next), headers });
      expect(next.headers['x-page-strategy']).toBe('seek');
      const all = (await t.get('/v3/payments?sort=-amount&per_page=5000', key)).body.data;
      expect(next.json().data).toEqual(all.slice(12 * 9, 13 * 9));
    } finally {
      await a.close();
      await b.close();
      await redis.quit();
    }
  });
});
