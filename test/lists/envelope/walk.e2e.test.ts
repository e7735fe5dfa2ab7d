import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { seed } from '../../support/seedHelpers.ts';
import { toPaymentResource } from '../../../src/payments/paymentResource.ts';
import { CARD_BRANDS, PAYMENT_STATUSES } from '../../../src/payments/paymentListSpec.ts';

type Payment = ReturnType<typeof toPaymentResource>;
const DATASETS = [
  { tenant: 'empty', accounts: 1, payments: 0 },
  { tenant: 'one', accounts: 1, payments: 1 },
  { tenant: 'small', accounts: 3, payments: 37 },
  { tenant: 'large', accounts: 9, payments: 260 },
];
const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'JPY'];

const subset = <T>(items: readonly T[]) => fc.subarray([...items], { minLength: 1 });
const queryArb = fc.record(
  {
    status: subset(PAYMENT_STATUSES),
    currency: subset(CURRENCIES),
    card_brand: subset(CARD_BRANDS),
    amountGte: fc.integer({ min: 0, max: 20_000 }),
    amountLt: fc.integer({ min: 0, max: 200_000 }),
  },
  { requiredKeys: [] },
);
type Query = { status?: string[]; currency?: string[]; card_brand?: string[]; amountGte?: number; amountLt?: number };
const sortArb = fc.constantFrom(undefined, 'amount', '-amount', 'created_at', '-created_at', 'amount,-created_at', '-amount,created_at');

function cmp(a: unknown, b: unknown) {
  return a === b ? 0 : (a as never) < (b as never) ? -1 : 1;
}

/** The oracle: what the API must return, computed in memory from the stored rows. */
function expected(rows: Payment[], q: Query, sort: string | undefined): Payment[] {
  const keys = (sort ?? 'created_at').split(',').map((k) => [k.replace('-', ''), k.startsWith('-') ? -1 : 1] as const);
  return rows
    .filter((p) => (!q.status || q.status.includes(p.status)) && (!q.currency || q.currency.includes(p.currency)))
    .filter((p) => !q.card_brand || q.card_brand.includes(p.card.brand))
    .filter((p) => (q.amountGte === undefined || p.amount >= q.amountGte) && (q.amountLt === undefined || p.amount < q.amountLt))
    .sort((x, y) => {
      for (const [k, dir] of keys) {
        const c = cmp((x as any)[k], (y as any)[k]) * dir;
        if (c) return c;
      }
      return cmp(x.id, y.id) * keys[keys.length - 1][1];
    });
}

function queryString(q: Query, sort: string | undefined, perPage: number): string {
  const parts: string[] = [];
  if (q.status) parts.push(`filter[status]=${q.status.join(',')}`);
  if (q.currency) parts.push(`filter[currency]=${q.currency.join(',')}`);
  if (q.card_brand) parts.push(`filter[card_brand]=${q.card_brand.join(',')}`);
  if (q.amountGte !== undefined) parts.push(`filter[amount][gte]=${q.amountGte}`);
  if (q.amountLt !== undefined) parts.push(`filter%5Bamount%5D%5Blt%5D=${q.amountLt}`);
  if (sort) parts.push(`sort=${sort}`);
  parts.push(`per_page=${perPage}`);
  return fc.sample(fc.shuffledSubarray(parts, { minLength: parts.length }), 1)[0].join('&');
}

describe('walking links.next from page 1', () => {
  let t: TestContext;
  const keys: Record<string, string> = {};
  const rows: Record<string, Payment[]> = {};
  beforeAll(async () => {
    t = await createTestApp();
    for (const d of DATASETS) {
      const tenant = await t.tenant(d.tenant);
      keys[d.tenant] = tenant.key;
      await seed(t.database.db, d.tenant, d.accounts, d.payments, `walk-${d.tenant}`);
      const stored = await t.database.db.kysely.selectFrom('payments').selectAll().where('tenant_id', '=', tenant.id).execute();
      rows[d.tenant] = stored.map(toPaymentResource);
    }
  });
  afterAll(() => t.close());

  it('returns every matching record exactly once, in order, with consistent counts on every page', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...DATASETS.map((d) => d.tenant)),
        queryArb,
        sortArb,
        fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(5000)),
        async (tenant, q, sort, perPage) => {
          const want = expected(rows[tenant], q, sort);
          fc.pre(want.length / perPage <= 60); // keep each walk short
          const seen: Payment[] = [];
          let url: string | null = `/v3/payments?${queryString(q, sort, perPage)}`;
          let page = 0;
          while (url) {
            page += 1;
            const response = await t.get(url.replace(/^http:\/\/[^/]+/, ''), keys[tenant]);
            expect(response.status).toBe(200);
            const { data, meta, links } = response.body;
            expect(meta.current_page).toBe(page);
            expect(meta.total).toBe(want.length);
            expect(meta.per_page).toBe(perPage);
            expect(meta.last_page).toBe(Math.max(1, Math.ceil(want.length / perPage)));
            expect(meta.from).toBe(data.length ? (page - 1) * perPage + 1 : null);
            expect(meta.to).toBe(data.length ? (page - 1) * perPage + data.length : null);
            expect(links.last).toMatch(new RegExp(`page=${meta.last_page}$`));
            seen.push(...data);
            url = links.next;
          }
          expect(page).toBe(Math.max(1, Math.ceil(want.length / perPage)));
          expect(seen.map((p) => p.id)).toEqual(want.map((p) => p.id));
          expect(seen).toEqual(want);
        },
      ),
      { numRuns: 60 },
    );
  });
});
