import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { foldAll } from '../../support/foldAll.ts';
import type { FastifyInstance } from 'fastify';
import { CARDS, card } from '../../support/cards.ts';
import { appOn, createTestApp, type TestContext } from '../../support/testApp.ts';

type Resource = { id: string; created_at: string; metadata: Record<string, string> } & Record<string, unknown>;

/**
 * A search of one metadata key with one value, sorted by created_at (the default, `created_at`,
 * `-created_at`), over the tenant's whole list: every page is read in the entries' own order
 * (lists/sql/entryOrderPage.ts, `X-Page-Strategy: entries`), first pages and deep ones, and is
 * exactly the slice count(*) + OFFSET gives of the records sorted by created_at then id. Many
 * records share a created_at (the clock held still while they are written), so the order among
 * them is their ids'. Accounts' metadata is replaced and accounts deleted in between: their
 * entries keep the account's created_at, not the time of the change.
 */
describe('a one-value metadata search in created_at order is read in its entries’ order', () => {
  let t: TestContext;
  /** Every page past the first is a deep one (plainOffsetUpTo 0). */
  let deep: FastifyInstance;
  const start = Date.now() + 3_600_000;
  /** Three instants, each shared by many records. */
  const instants = [start, start + 1, start + 60_000].map((ms) => new Date(ms));

  beforeAll(async () => {
    t = await createTestApp();
    deep = await appOn(t.database, { listTuning: { plainOffsetUpTo: 0, skipHop: 3 } });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await deep.close();
    await t.close();
  });

  /** Writes at `at`: the service's clock reads that instant meanwhile. */
  async function at<T>(when: Date, write: () => Promise<T>): Promise<T> {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(when);
    try {
      return await write();
    } finally {
      vi.useRealTimers();
    }
  }

  const byCreated = (direction: 'asc' | 'desc') => (a: Resource, b: Resource) => {
    const sign = direction === 'asc' ? 1 : -1;
    if (a.created_at !== b.created_at) return (a.created_at < b.created_at ? -1 : 1) * sign;
    return (a.id < b.id ? -1 : 1) * sign;
  };

  const byAmount = (direction: 'asc' | 'desc') => (a: Resource, b: Resource) => {
    const sign = direction === 'asc' ? 1 : -1;
    if (a.amount !== b.amount) return ((a.amount as number) < (b.amount as number) ? -1 : 1) * sign;
    return (a.id < b.id ? -1 : 1) * sign;
  };

  const tierGold = { search: 'filter[metadata][tier]=gold', keeps: (r: Resource) => r.metadata.tier === 'gold' };

  type Sort = readonly [string, (r: Resource, s: Resource) => number];
  const createdOrders: Sort[] = [
    ['', byCreated('asc')],
    ['&sort=created_at', byCreated('asc')],
    ['&sort=-created_at', byCreated('desc')],
  ];
  const amountOrders: Sort[] = [
    ['&sort=amount', byAmount('asc')],
    ['&sort=-amount', byAmount('desc')],
  ];

  /** Every page (and one past the last) of `path` searched (tier=gold unless told), on both instances, against the model, in each of `sorts`. */
  async function checkEveryPage(key: string, path: string, records: Resource[], { search, keeps } = tierGold, perPages = [1, 4], sorts = createdOrders) {
    const gold = records.filter(keeps);
    expect(gold.length).toBeGreaterThan(8);
    for (const [sort, order] of sorts) {
      const expected = [...gold].sort(order);
      for (const [way, app] of [
        ['first pages', t.app],
        ['deep pages', deep],
      ] as const) {
        for (const perPage of perPages) {
          const last = Math.ceil(expected.length / perPage);
          for (let page = 1; page <= last + 1; page++) {
            const url = `${path}?${search}${sort}&per_page=${perPage}&page=${page}`;
            const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
            expect(response.statusCode, response.body).toBe(200);
            const body = response.json();
            expect(body.meta.total, `${way}: ${url}`).toBe(expected.length);
            expect(body.data, `${way}: ${url}`).toEqual(expected.slice((page - 1) * perPage, page * perPage));
            expect(response.headers['x-page-strategy'], `${way}: ${url}`).toBe(page > last ? 'past-end' : 'entries');
          }
        }
      }
    }
  }

  it('pages payments sharing created_at instants in both directions, each page as count(*) + OFFSET gives it', async () => {
    const { key } = await t.tenant('entry-order-payments');
    const account = (await t.send('POST', '/v3/accounts', key, { name: 'a', email: 'a@example.com', currency: 'EUR' })).body.data;
    const payments: Resource[] = [];
    for (const [i, instant] of instants.entries()) {
      await at(instant, async () => {
        for (let n = 0; n < 9; n++) {
          const metadata = n % 3 === 2 ? { tier: 'silver' } : n % 4 === 0 ? { tier: 'gold', channel: `web${i}` } : { tier: 'gold' };
          const created = await t.send('POST', '/v3/payments', key, { account_id: account.id, amount: 100 + n, currency: 'EUR', card: card(), metadata });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          payments.push(created.body.data);
        }
      });
    }
    await checkEveryPage(key, '/v3/payments', payments);
  });

  it('pages a search bounded by a created_at range in the entries, each operator on and beside the shared instants, its total counted there', async () => {
    const { key } = await t.tenant('entry-order-created-range');
    const account = (await t.send('POST', '/v3/accounts', key, { name: 'a', email: 'a@example.com', currency: 'EUR' })).body.data;
    const payments: Resource[] = [];
    for (const instant of instants) {
      await at(instant, async () => {
        for (let n = 0; n < 10; n++) {
          const metadata = n % 3 === 2 ? { tier: 'silver' } : n % 2 === 0 ? { tier: 'gold', channel: 'web' } : { tier: 'gold' };
          const created = await t.send('POST', '/v3/payments', key, { account_id: account.id, amount: 100 + n, currency: 'EUR', card: card(), metadata });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          payments.push(created.body.data);
        }
      });
    }
    const [first, second, third] = instants.map((d) => d.toISOString());
    const gold = (r: Resource) => r.metadata.tier === 'gold';
    const ranges: Array<[string, (created: string) => boolean]> = [
      [`filter[created_at][gte]=${second}`, (c) => c >= second],
      [`filter[created_at][gt]=${first}`, (c) => c > first],
      [`filter[created_at][lt]=${third}`, (c) => c < third],
      [`filter[created_at][lte]=${second}`, (c) => c <= second],
      [`filter[created_at][gte]=${first}&filter[created_at][lt]=${third}`, (c) => c >= first && c < third],
    ];
    for (const [range, holds] of ranges) {
      await checkEveryPage(
        key,
        '/v3/payments',
        payments,
        { search: `filter[metadata][tier]=gold&${range}`, keeps: (r) => gold(r) && holds(r.created_at) },
        [1, 5],
      );
    }
    // Two keys and a range: the lead's entries bounded by it, the other key probed, the total counted along them.
    await checkEveryPage(
      key,
      '/v3/payments',
      payments,
      {
        search: `filter[metadata][tier]=gold&filter[metadata][channel]=web&filter[created_at][lte]=${third}`,
        keeps: (r) => gold(r) && r.metadata.channel === 'web' && r.created_at <= third,
      },
      [3],
    );
  });

  it('pages a search beside currencies, card brands and an amount range in the entries (migration 0030), a smaller capture’s amount too, its total counted there', async () => {
    const { key } = await t.tenant('entry-order-carried');
    const account = (await t.send('POST', '/v3/accounts', key, { name: 'a', email: 'a@example.com', currency: 'EUR' })).body.data;
    const payments = new Map<string, Resource>();
    const currencies = ['EUR', 'USD', 'GBP'];
    const cards = [CARDS.visa, CARDS.mastercard, CARDS.amex];
    for (const instant of instants) {
      await at(instant, async () => {
        for (let n = 0; n < 21; n++) {
          const metadata = n % 5 === 4 ? { tier: 'silver' } : n % 4 === 0 ? { tier: 'gold', channel: 'web' } : { tier: 'gold' };
          // Amounts on and beside the bounds searched below; every fourth only authorized, captured for less later.
          const body = {
            account_id: account.id,
            amount: [300, 299, 301, 500, 1000][n % 5] + (n > 9 ? 200 : 0),
            currency: currencies[n % 3],
            card: card(cards[Math.floor(n / 3) % 3]),
            metadata,
          };
          const created = await t.send('POST', '/v3/payments', key, { ...body, capture: n % 4 !== 1 });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          payments.set(created.body.data.id, created.body.data);
        }
      });
    }
    // A capture of less than authorized lowers a payment's amount, across the bounds searched (300 → 299, 501 → 500, 700 → 300).
    let lowered = 0;
    for (const p of [...payments.values()].filter((r) => r.status === 'authorized')) {
      const amount = p.amount === 300 ? 299 : p.amount === 501 ? 500 : p.amount === 700 ? 300 : undefined;
      if (amount !== undefined && p.metadata.tier === 'gold') lowered++;
      const captured = await t.send('POST', `/v3/payments/${p.id}/capture`, key, amount === undefined ? {} : { amount });
      expect(captured.status, JSON.stringify(captured.body)).toBe(200);
      payments.set(p.id, captured.body.data);
    }
    const all = [...payments.values()];
    expect(lowered).toBeGreaterThan(3);
    const [, second] = instants.map((d) => d.toISOString());
    const gold = (r: Resource) => r.metadata.tier === 'gold';
    const amount = (r: Resource) => r.amount as number;
    const brand = (r: Resource) => (r.card as { brand: string }).brand;
    const shapes: Array<[string, (r: Resource) => boolean]> = [
      ['filter[currency]=EUR', (r) => r.currency === 'EUR'],
      ['filter[currency]=EUR,GBP&filter[card_brand]=visa', (r) => ['EUR', 'GBP'].includes(r.currency as string) && brand(r) === 'visa'],
      ['filter[amount][gte]=300', (r) => amount(r) >= 300],
      ['filter[amount][gt]=300&filter[amount][lte]=500&filter[currency]=USD', (r) => amount(r) > 300 && amount(r) <= 500 && r.currency === 'USD'],
      ['filter[amount][lt]=301', (r) => amount(r) < 301],
      [`filter[card_brand]=mastercard,amex&filter[created_at][gte]=${second}`, (r) => ['mastercard', 'amex'].includes(brand(r)) && r.created_at >= second],
    ];
    for (const [filters, holds] of shapes) {
      await checkEveryPage(key, '/v3/payments', all, { search: `filter[metadata][tier]=gold&${filters}`, keeps: (r) => gold(r) && holds(r) }, [1, 5]);
    }
    // Two keys and a currency: the lead's entries tested and probed, the total counted along them.
    await checkEveryPage(
      key,
      '/v3/payments',
      all,
      {
        search: 'filter[metadata][channel]=web&filter[metadata][tier]=gold&filter[currency]=EUR,USD',
        keeps: (r) => gold(r) && r.metadata.channel === 'web' && r.currency !== 'GBP',
      },
      [2],
    );
  });

  it('pages a search of several values beside statuses in amount and created_at order in the entries (migration 0032), as captures, cancels and refunds move them', async () => {
    const { key } = await t.tenant('entry-order-statuses');
    const account = (await t.send('POST', '/v3/accounts', key, { name: 'a', email: 'a@example.com', currency: 'EUR' })).body.data;
    const payments = new Map<string, Resource>();
    for (const [i, instant] of instants.entries()) {
      await at(instant, async () => {
        for (let n = 0; n < 24; n++) {
          // Amounts shared by many (ties ordered by id), channels web, pos and others, a tier on some; a few declined.
          const metadata = { channel: ['web', 'pos', 'app'][n % 3], ...(n % 4 === 0 ? { tier: 'gold' } : n % 4 === 1 ? { tier: 'silver' } : {}) };
          const number = n % 7 === 3 ? CARDS.declined : CARDS.visa;
          const body = { account_id: account.id, amount: [500, 700, 500, 900][n % 4] + i, currency: 'EUR', card: card(number), metadata };
          const created = await t.send('POST', '/v3/payments', key, { ...body, capture: n % 3 !== 1 });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          payments.set(created.body.data.id, created.body.data);
        }
      });
    }
    // Statuses move after create: half the authorized captured (some for less), the rest canceled; succeeded ones refunded in part or whole.
    let moved = 0;
    for (const [n, p] of [...payments.values()].entries()) {
      const move =
        p.status === 'authorized'
          ? n % 2 === 0
            ? { path: 'capture', body: n % 4 === 0 ? { amount: 499 } : {} }
            : { path: 'cancel', body: {} }
          : p.status === 'succeeded' && n % 3 === 0
            ? { path: 'refunds', body: n % 2 === 0 ? { amount: 100 } : {} }
            : undefined;
      if (!move) continue;
      const response = await t.send('POST', `/v3/payments/${p.id}/${move.path}`, key, move.body);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      payments.set(p.id, response.body.data);
      moved++;
    }
    expect(moved).toBeGreaterThan(15);
    // The entries carry the moved statuses once folded (while a move waits, test/lists/counters/entriesBehind.e2e.test.ts).
    await foldAll(t.database.db);
    const all = [...payments.values()];
    const statusIn = (r: Resource, statuses: string[]) => statuses.includes(r.status as string);
    const shapes: Array<[string, (r: Resource) => boolean]> = [
      ['filter[metadata][channel]=web,pos&filter[status]=succeeded', (r) => ['web', 'pos'].includes(r.metadata.channel) && statusIn(r, ['succeeded'])],
      [
        'filter[metadata][channel]=pos,app&filter[status]=refunded,partially_refunded,canceled',
        (r) => ['pos', 'app'].includes(r.metadata.channel) && statusIn(r, ['refunded', 'partially_refunded', 'canceled']),
      ],
      ['filter[metadata][channel]=web,pos,app', (r) => r.metadata.channel !== undefined],
      [
        'filter[metadata][tier]=gold,silver&filter[metadata][channel]=web,app&filter[status]=succeeded,failed&filter[amount][gte]=500',
        (r) =>
          ['gold', 'silver'].includes(r.metadata.tier) &&
          ['web', 'app'].includes(r.metadata.channel) &&
          statusIn(r, ['succeeded', 'failed']) &&
          (r.amount as number) >= 500,
      ],
    ];
    for (const [search, keeps] of shapes) {
      await checkEveryPage(key, '/v3/payments', all, { search, keeps }, [1, 5], [...amountOrders, ...createdOrders.slice(1)]);
    }
  });

  it('pages a search of two keys along the entries of the one with fewer, the other probed, whichever is named first', async () => {
    const { key } = await t.tenant('entry-order-two-keys');
    const account = (await t.send('POST', '/v3/accounts', key, { name: 'a', email: 'a@example.com', currency: 'EUR' })).body.data;
    const payments: Resource[] = [];
    for (const [i, instant] of instants.entries()) {
      await at(instant, async () => {
        for (let n = 0; n < 16; n++) {
          // tier=gold on most, channel=web on a few of them and of the others, pos on some
          const metadata = { ...(n % 8 !== 7 ? { tier: 'gold' } : {}), ...(n % 3 === 0 ? { channel: 'web' } : n % 5 === 1 ? { channel: `pos${i}` } : {}) };
          const number = n % 4 === 2 ? CARDS.declined : CARDS.visa;
          const created = await t.send('POST', '/v3/payments', key, { account_id: account.id, amount: 100 + n, currency: 'EUR', card: card(number), metadata });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          payments.push(created.body.data);
        }
      });
    }
    const goldWeb = (r: Resource) => r.metadata.tier === 'gold' && r.metadata.channel === 'web';
    await checkEveryPage(key, '/v3/payments', payments, { search: 'filter[metadata][tier]=gold&filter[metadata][channel]=web', keeps: goldWeb });
    await checkEveryPage(key, '/v3/payments', payments, { search: 'filter[metadata][channel]=web&filter[metadata][tier]=gold', keeps: goldWeb }, [3]);
    // channel any of several values: gold leads (the one key searched for one value).
    await checkEveryPage(
      key,
      '/v3/payments',
      payments,
      {
        search: 'filter[metadata][channel]=web,pos1,pos2&filter[metadata][tier]=gold',
        keeps: (r) => r.metadata.tier === 'gold' && ['web', 'pos1', 'pos2'].includes(r.metadata.channel),
      },
      [3],
    );
    // With a status beside them: each entry's record tested too.
    const failed = payments.filter((r) => r.status === 'failed').length;
    expect(failed).toBeGreaterThan(0);
    await checkEveryPage(
      key,
      '/v3/payments',
      payments,
      {
        search: 'filter[metadata][tier]=gold&filter[metadata][channel]=web&filter[status]=succeeded,failed',
        keeps: (r) => goldWeb(r) && ['succeeded', 'failed'].includes(r.status as string),
      },
      [3],
    );
  });

  it('pages accounts in created_at order as their metadata is replaced and accounts are deleted, the entries keeping each account’s created_at', async () => {
    const { key } = await t.tenant('entry-order-accounts');
    const accounts = new Map<string, Resource>();
    for (const instant of instants) {
      await at(instant, async () => {
        for (let n = 0; n < 10; n++) {
          const metadata = n % 2 === 0 ? { tier: 'gold' } : { tier: 'silver' };
          const created = await t.send('POST', '/v3/accounts', key, { name: `a${n}`, email: 'a@example.com', currency: 'EUR', metadata });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          accounts.set(created.body.data.id, created.body.data);
        }
      });
    }
    // Later (now, not any instant above): silver becomes gold on some, gold silver on others, some deleted.
    for (const [i, account] of [...accounts.values()].entries()) {
      if (i % 5 === 0) {
        expect((await t.send('DELETE', `/v3/accounts/${account.id}`, key)).status).toBe(204);
        accounts.delete(account.id);
      } else if (i % 3 === 0) {
        const metadata = account.metadata.tier === 'gold' ? { tier: 'silver', note: 'x' } : { tier: 'gold' };
        const patched = await t.send('PATCH', `/v3/accounts/${account.id}`, key, { metadata });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
        accounts.set(account.id, patched.body.data);
      }
    }
    await checkEveryPage(key, '/v3/accounts', [...accounts.values()]);
  });
});
