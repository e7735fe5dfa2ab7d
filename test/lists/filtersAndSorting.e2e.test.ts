import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';

type Row = Record<string, any>;

/** Every record of a list, by following links.next with the largest page. */
async function all(t: TestContext, url: string, key: string): Promise<Row[]> {
  const rows: Row[] = [];
  let next: string | null = `${url + (url.includes('?') ? '&' : '?')}per_page=5000`;
  while (next) {
    const { status, body } = await t.get(next.replace(/^https?:\/\/[^/]+/, ''), key);
    expect(status).toBe(200);
    rows.push(...body.data);
    next = body.links.next;
  }
  return rows;
}

function compare(a: unknown, b: unknown): number {
  return a === b ? 0 : (a as any) < (b as any) ? -1 : 1;
}

/** The order the API promises: keys in turn, then id in the last key's direction. */
function sortedBy(rows: Row[], keys: Array<[string, 1 | -1]>): Row[] {
  const last = keys[keys.length - 1][1];
  return [...rows].sort((x, y) => {
    for (const [k, dir] of keys) {
      const c = compare(x[k], y[k]) * dir;
      if (c !== 0) return c;
    }
    return compare(x.id, y.id) * last;
  });
}

describe('filters and sorting (API.md §4)', () => {
  let t: TestContext;
  let key: string;
  let payments: Row[];
  let accounts: Row[];
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('lists')).key;
    await seed(t.database.db, 'lists', 30, 600);
    // Another tenant's data must never leak into the filtered results or totals.
    await t.tenant('noise');
    await seed(t.database.db, 'noise', 10, 300);
    payments = await all(t, '/v3/payments', key);
    accounts = await all(t, '/v3/accounts', key);
  });
  afterAll(() => t.close());

  it('lists each record exactly as its single-resource endpoint shows it', async () => {
    for (const account of accounts.slice(0, 10)) expect((await t.get(`/v3/accounts/${account.id}`, key)).body.data).toEqual(account);
    for (const payment of payments.slice(0, 50)) expect((await t.get(`/v3/payments/${payment.id}`, key)).body.data).toEqual(payment);
  });

  it('lists every payment and account of the tenant, oldest first', () => {
    expect(payments).toHaveLength(600);
    expect(accounts).toHaveLength(30);
    expect(payments).toEqual(sortedBy(payments, [['created_at', 1]]));
  });

  const paymentFilters: Array<[string, (p: Row) => boolean]> = [
    ['filter[status]=failed', (p) => p.status === 'failed'],
    ['filter[status]=refunded,partially_refunded', (p) => ['refunded', 'partially_refunded'].includes(p.status)],
    ['filter[currency]=EUR', (p) => p.currency === 'EUR'],
    ['filter[currency]=GBP,JPY', (p) => ['GBP', 'JPY'].includes(p.currency)],
    ['filter[card_brand]=amex,jcb', (p) => ['amex', 'jcb'].includes(p.card.brand)],
    ['filter[amount][gte]=1000&filter[amount][lte]=5000', (p) => p.amount >= 1000 && p.amount <= 5000],
    ['filter[amount][gt]=10000', (p) => p.amount > 10000],
    ['filter[amount][lt]=500', (p) => p.amount < 500],
    ['filter[created_at][gte]=2026-08-01&filter[created_at][lt]=2026-09-01T00:00:00Z', (p) => p.created_at >= '2026-08-01' && p.created_at < '2026-09-01'],
    ['filter[created_at][gt]=2026-10-01T12:00:00%2B02:00', (p) => p.created_at > '2026-10-01T10:00:00.000Z'],
    ['filter[status]=succeeded&filter[currency]=USD&filter[amount][gte]=2000', (p) => p.status === 'succeeded' && p.currency === 'USD' && p.amount >= 2000],
  ];
  it.each(paymentFilters)('payments?%s returns exactly the matching records', async (query, predicate) => {
    const expected = payments.filter(predicate);
    expect(expected.length).toBeGreaterThan(0);
    const got = await all(t, `/v3/payments?${query}`, key);
    expect(got.map((p) => p.id)).toEqual(expected.map((p) => p.id));
    expect((await t.get(`/v3/payments?${query}`, key)).body.meta.total).toBe(expected.length);
  });

  it('filters by account id, card last4 and reference', async () => {
    const sample = payments.find((p) => p.reference !== null)!;
    for (const [query, predicate] of [
      [`filter[account_id]=${sample.account_id}`, (p: Row) => p.account_id === sample.account_id],
      [`filter[card_last4]=${sample.card.last4}`, (p: Row) => p.card.last4 === sample.card.last4],
      [`filter[reference]=${sample.reference}`, (p: Row) => p.reference === sample.reference],
    ] as const) {
      const got = await all(t, `/v3/payments?${query}`, key);
      expect(got.map((p) => p.id)).toEqual(payments.filter(predicate).map((p) => p.id));
    }
  });

  const paymentSorts: Array<[string, Array<[string, 1 | -1]>]> = [
    ['sort=amount', [['amount', 1]]],
    ['sort=-amount', [['amount', -1]]],
    ['sort=-created_at', [['created_at', -1]]],
    [
      'sort=amount,-created_at',
      [
        ['amount', 1],
        ['created_at', -1],
      ],
    ],
  ];
  it.each(paymentSorts)('payments?%s orders by the keys, then id', async (query, keys) => {
    const got = await all(t, `/v3/payments?${query}`, key);
    expect(got.map((p) => p.id)).toEqual(sortedBy(payments, keys).map((p) => p.id));
  });

  it('combines a filter and a sort: filter[status]=failed&sort=-amount', async () => {
    const got = await all(t, '/v3/payments?filter[status]=failed&sort=-amount', key);
    const expected = sortedBy(
      payments.filter((p) => p.status === 'failed'),
      [['amount', -1]],
    );
    expect(got.map((p) => p.id)).toEqual(expected.map((p) => p.id));
  });

  it('lists one account’s payments with the same filters, and 404s for an unknown account', async () => {
    const account = accounts.find((a) => payments.some((p) => p.account_id === a.id))!;
    const got = await all(t, `/v3/accounts/${account.id}/payments?sort=-amount`, key);
    expect(got.map((p) => p.id)).toEqual(
      sortedBy(
        payments.filter((p) => p.account_id === account.id),
        [['amount', -1]],
      ).map((p) => p.id),
    );
    expect((await t.get('/v3/accounts/acc_01ARZ3NDEKTSV4RRFFQ69G5FAV/payments', key)).status).toBe(404);
    expect((await t.get('/v3/accounts/nope/payments', key)).status).toBe(404);
  });

  const accountFilters: Array<[string, (a: Row) => boolean]> = [
    ['filter[status]=active', (a) => a.status === 'active'],
    ['filter[status]=suspended,closed', (a) => a.status !== 'active'],
    ['filter[currency]=USD', (a) => a.currency === 'USD'],
    ['filter[created_at][lte]=2026-02-01', (a) => a.created_at <= '2026-02-01T00:00:00.000Z'],
  ];
  it.each(accountFilters)('accounts?%s returns exactly the matching records', async (query, predicate) => {
    const got = await all(t, `/v3/accounts?${query}`, key);
    expect(got.map((a) => a.id)).toEqual(accounts.filter(predicate).map((a) => a.id));
  });

  it('finds accounts by email case-insensitively and by a name substring', async () => {
    const sample = accounts[3];
    const byEmail = await all(t, `/v3/accounts?filter[email]=${encodeURIComponent(sample.email.toUpperCase())}`, key);
    expect(byEmail.map((a) => a.id)).toEqual(accounts.filter((a) => a.email.toLowerCase() === sample.email.toLowerCase()).map((a) => a.id));
    const fragment = sample.name.slice(1, 5).toLowerCase();
    const byName = await all(t, `/v3/accounts?filter[name]=${encodeURIComponent(fragment.toUpperCase())}`, key);
    expect(byName.map((a) => a.id)).toEqual(accounts.filter((a) => a.name.toLowerCase().includes(fragment)).map((a) => a.id));
    expect(byName.length).toBeGreaterThan(0);
  });

  it('treats % and _ in a name filter as literal characters', async () => {
    expect((await t.get('/v3/accounts?filter[name]=%25', key)).body.meta.total).toBe(0);
    expect((await t.get('/v3/accounts?filter[name]=_', key)).body.meta.total).toBe(0);
  });

  it('sorts accounts by name either way', async () => {
    const got = await all(t, '/v3/accounts?sort=-name', key);
    expect(got.map((a) => a.id)).toEqual(sortedBy(accounts, [['name', -1]]).map((a) => a.id));
  });

  const badQueries: Array<[string, string, string]> = [
    ['/v3/payments', 'filter[colour]=red', 'filter[colour]'],
    ['/v3/payments', 'filter[status]=lost', 'filter[status]'],
    ['/v3/payments', 'filter[status]=', 'filter[status]'],
    ['/v3/payments', 'filter[status]=failed&filter[status]=succeeded', 'filter[status]'],
    ['/v3/payments', 'filter[amount][gte]=ten', 'filter[amount][gte]'],
    ['/v3/payments', 'filter[amount][gte]=-5', 'filter[amount][gte]'],
    ['/v3/payments', 'filter[amount][between]=5', 'filter[amount][between]'],
    ['/v3/payments', 'filter[amount]=5', 'filter[amount]'],
    ['/v3/payments', 'filter[created_at][gte]=yesterday', 'filter[created_at][gte]'],
    ['/v3/payments', 'filter[created_at][gte]=2026-13-01', 'filter[created_at][gte]'],
    ['/v3/payments', 'filter[card_last4]=12', 'filter[card_last4]'],
    ['/v3/payments', 'filter[currency]=usd', 'filter[currency]'],
    ['/v3/payments', 'filter=status', 'filter'],
    ['/v3/payments', 'sort=name', 'sort'],
    ['/v3/payments', 'sort=amount,amount', 'sort'],
    ['/v3/payments', 'sort=', 'sort'],
    ['/v3/payments', 'sort=+amount', 'sort'],
    ['/v3/payments', 'sort[]=amount', 'sort'],
    ['/v3/accounts', 'sort=amount', 'sort'],
    ['/v3/accounts', 'filter[card_brand]=visa', 'filter[card_brand]'],
    ['/v3/accounts', `filter[name]=${'x'.repeat(201)}`, 'filter[name]'],
  ];
  it.each(badQueries)('%s?%s is a 422 naming %s and what is allowed', async (path, query, field) => {
    const { status, body, headers } = await t.get(`${path}?${query}`, key);
    expect(status).toBe(422);
    expect(headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Object.keys(body.errors)).toEqual([field]);
  });

  it('lists the allowed filters and sorts in the messages', async () => {
    expect((await t.get('/v3/payments?filter[colour]=red', key)).body.errors['filter[colour]'][0]).toContain('status, currency, account_id');
    expect((await t.get('/v3/accounts?sort=amount', key)).body.errors.sort[0]).toContain('created_at, name');
  });

  it('carries unknown top-level parameters forward without failing', async () => {
    const { status, body } = await t.get('/v3/payments?utm_source=mail&per_page=3', key);
    expect(status).toBe(200);
    expect(body.links.next).toMatch(/\?utm_source=mail&per_page=3&page=2$/);
  });
});
