import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEveryPage } from '../support/everyPage.ts';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';
import { RANGE_HOLDS, type RangeOp } from '../support/rangeOps.ts';
import { recountTenant } from '../../src/lists/counters/listCounts.ts';

interface Row {
  id: string;
  currency: string;
  amount: number;
  at: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A created_at range in amount order ("last month's payments, largest first"), every page read
 * one by one next to count(*) + OFFSET over the same rows (an oracle in the test), both
 * directions, the whole list and one currency: ranges from midnight to midnight (placed down to
 * the two-digit classes), on hour edges, off them (edge rows counted by amount), open at one end;
 * records moved onto the range's ends and onto amount class edges. From page 2 on every page is a
 * deep one (plainOffsetUpTo 3) and the classes always place it (the tuning: the cost choice would
 * walk so few rows), from the nearer end.
 */
describe('a created_at range in amount order: pages placed by the amount classes', () => {
  let t: TestContext;
  let key: string;
  let rows: Row[];
  const month = Date.parse('2026-08-01T00:00:00Z');
  const next = Date.parse('2026-09-01T00:00:00Z');
  beforeAll(async () => {
    t = await createTestApp({ listTuning: { plainOffsetUpTo: 3, skipHop: 7, classPlacement: 'always' } });
    key = (await t.tenant('monthly')).key;
    await seed(t.database.db, 'monthly', 3, 1500);
    const { kysely, dialect } = t.database.db;
    const tenant = await kysely.selectFrom('tenants').select('id').where('name', '=', 'monthly').executeTakeFirstOrThrow();
    // Amounts on the edges of every kind of class (a number of digits, one and two significant
    // digits: R - 1, R, R + 1), and times on the ranges' ends and the hours and days around them.
    const amounts = [9, 10, 11, 99, 100, 101, 999, 1000, 1001, 1499, 1500, 1501, 4999, 5000, 5001, 9999, 10_000, 10_001, 35_000, 35_001, 100_000];
    const times = [month, month - 1, month + 1, next, next - 1, month + HOUR, month + 5 * HOUR, month + 20 * DAY + 12 * HOUR, month + 20 * DAY + 13 * HOUR - 1];
    const picked = await kysely
      .selectFrom('payments')
      .select('id')
      .where('tenant_id', '=', tenant.id)
      .where('created_at', '>=', iso(month))
      .where('created_at', '<', iso(next))
      .orderBy('id')
      .limit(amounts.length * 3 + times.length)
      .execute();
    await kysely.transaction().execute(async (trx) => {
      for (const [i, { id }] of picked.entries()) {
        const set = i < times.length ? { created_at: iso(times[i]) } : { amount: amounts[(i - times.length) % amounts.length] };
        await trx.updateTable('payments').set(set).where('id', '=', id).execute();
      }
      await recountTenant(trx, dialect, tenant.id);
    });
    const all = await kysely
      .selectFrom('payments')
      .select(['id', 'currency', 'amount', sql<string>`created_at`.as('created_at')])
      .where('tenant_id', '=', tenant.id)
      .execute();
    rows = all.map((r) => ({ id: r.id, currency: r.currency, amount: Number(r.amount), at: new Date(r.created_at).getTime() }));
  });
  afterAll(() => t.close());

  function expected(currency: string | undefined, ranges: Array<[RangeOp, number]>, desc: boolean): string[] {
    return rows
      .filter((r) => (currency === undefined || r.currency === currency) && ranges.every(([op, b]) => RANGE_HOLDS[op](r.at, b)))
      .sort((a, b) => (a.amount - b.amount || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) * (desc ? -1 : 1))
      .map((r) => r.id);
  }

  /** Every page, and the one past the end; deep pages must be placed by the classes. */
  async function everyPage(currency: string | undefined, ranges: Array<[RangeOp, number]>, sort: 'amount' | '-amount') {
    const want = expected(currency, ranges, sort === '-amount');
    const query = [
      ...(currency ? [`filter[currency]=${currency}`] : []),
      ...ranges.map(([op, b]) => `filter[created_at][${op}]=${encodeURIComponent(iso(b))}`),
      `sort=${sort}`,
    ].join('&');
    // Every row is read in its place; pages of 19 (not 7) keep the run's time down (95 s on PostgreSQL).
    const perPage = 19;
    const last = Math.max(1, Math.ceil(want.length / perPage));
    expect(last, query).toBeGreaterThan(4);
    for (const [page, strategy] of await readEveryPage(t, key, query, want, perPage)) {
      // A skip from the nearer end below plainOffsetUpTo (3) is a plain OFFSET.
      const offset = (page - 1) * perPage;
      const skip = Math.min(offset, want.length - offset - perPage);
      if (page <= last && skip >= 3) expect(['classes', 'classes-from-end'], `${query} page ${page}`).toContain(strategy);
    }
  }

  const ranges: Array<[string, Array<[RangeOp, number]>]> = [
    [
      'a month, midnight to midnight',
      [
        ['gte', month],
        ['lt', next],
      ],
    ],
    [
      'on hour edges',
      [
        ['gte', month + 5 * HOUR],
        ['lt', month + 20 * DAY + 12 * HOUR],
      ],
    ],
    [
      'off hour edges, ends on records’ own times',
      [
        ['gt', month + 1],
        ['lte', month + 20 * DAY + 13 * HOUR - 1],
      ],
    ],
    ['open above', [['gte', month + 20 * DAY + 12 * HOUR]]],
    ['open below', [['lt', month + 5 * DAY]]],
  ];

  for (const [name, range] of ranges) {
    it(`${name}: every page, either direction, the whole list and one currency`, async () => {
      const commonest = [...Map.groupBy(rows, (r) => r.currency)].sort((a, b) => b[1].length - a[1].length)[0][0];
      for (const sort of ['-amount', 'amount'] as const) {
        await everyPage(undefined, range, sort);
        await everyPage(commonest, range, sort);
      }
    }, 300_000);
  }

  it('a range inside one hour is no class placement (no whole hour is covered): read row by row, exact', async () => {
    const range: Array<[RangeOp, number]> = [
      ['gte', month + 5 * HOUR + 1],
      ['lt', month + 5 * HOUR + 40 * 60_000],
    ];
    const want = expected(undefined, range, true);
    const query = `filter[created_at][gte]=${iso(range[0][1])}&filter[created_at][lt]=${iso(range[1][1])}&sort=-amount&per_page=1&page=2`;
    const response = await t.get(`/v3/payments?${query}`, key);
    expect(response.body.meta.total).toBe(want.length);
    expect(response.body.data.map((p: { id: string }) => p.id)).toEqual(want.slice(1, 2));
    expect(String(response.headers['x-page-strategy'])).not.toMatch(/^classes/);
  });
});
