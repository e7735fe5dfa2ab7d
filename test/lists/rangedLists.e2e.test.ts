import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { TEST_DIALECT } from '../support/testDatabase.ts';
import { seed } from '../support/seedHelpers.ts';
import { RANGE_HOLDS, type RangeOp } from '../support/rangeOps.ts';
import { recountTenant } from '../../src/lists/counters/listCounts.ts';

interface Row {
  id: string;
  account_id: string;
  status: string;
  currency: string;
  card_brand: string;
  amount: number;
  at: number;
}

type Op = RangeOp;
const HOLDS = RANGE_HOLDS;

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Totals and pages of lists filtered by counted dimensions and a created_at or amount range, next
 * to count(*) + OFFSET over the same rows (an oracle in the test). The first pages are plain
 * OFFSET from page 2 on (plainOffsetUpTo 3), so every later page is a deep one; ranges start and
 * end exactly on bucket edges of every level, one millisecond either side, and on records' own
 * values, some of which are moved onto bucket edges themselves.
 */
describe('lists narrowed by counted filters and a range: exact totals and pages', () => {
  let t: TestContext;
  let key: string;
  let rows: Row[];
  beforeAll(async () => {
    t = await createTestApp({ listTuning: { plainOffsetUpTo: 3, skipHop: 7 } });
    key = (await t.tenant('ranged')).key;
    await seed(t.database.db, 'ranged', 3, 1200);
    const { kysely, dialect } = t.database.db;
    const tenant = await kysely.selectFrom('tenants').select('id').where('name', '=', 'ranged').executeTakeFirstOrThrow();
    // Records exactly on bucket edges (a day, an hour, five minutes; amounts 1000, 10000, 12300,
    // and on the edges of amount classes: one-significant-digit values R and R ± 1, R - 1 and
    // R + 1 of some others), then the counts rebuilt from the rows as after a bulk load.
    const classEdges = [1, 9, 10, 20, 99, 100, 500, 999, 1000, 4999, 5000, 5001, 10_000].flatMap((r) => [r - 1, r, r + 1]);
    // And R - 1, R, R + 1 of two-significant-digit R (migration 0025's classes): 15, 120, 350, 1500, 2500, 35000.
    const twoDigitEdges = [15, 120, 350, 1500, 1500, 2500, 2500, 35_000].flatMap((r) => [r - 1, r, r + 1]);
    // And R - 1, R, R + 1 of ends with three or more significant digits, and of the class edges beside them
    // (a sliver's ends: lists/plan/amountClassRanges.ts): 1510 (1501 … 1509 below it), 125 (121), 345, 2345, 1520, 1599, 12345.
    const sliverEdges = [1510, 1501, 125, 121, 130, 345, 2345, 2301, 1520, 1599, 12_345, 12_001].flatMap((r) => [r - 1, r, r + 1]);
    const amounts = [
      1000,
      10_000,
      12_300,
      999,
      100,
      99,
      100_000,
      99_999,
      10,
      9,
      1000,
      10_000,
      ...classEdges,
      5000,
      5000,
      20,
      500,
      ...twoDigitEdges,
      ...sliverEdges,
    ];
    const moved = await kysely
      .selectFrom('payments')
      .select('id')
      .where('tenant_id', '=', tenant.id)
      .orderBy('id')
      .limit(8 + amounts.length)
      .execute();
    const edges = ['2026-08-01T00:00:00.000Z', '2026-08-01T01:00:00.000Z', '2026-08-01T00:05:00.000Z', '2026-09-17T00:00:00.000Z'];
    await kysely.transaction().execute(async (trx) => {
      for (const [i, { id }] of moved.entries()) {
        const set = i < 8 ? { created_at: edges[i % edges.length] } : { amount: amounts[i - 8] };
        await trx.updateTable('payments').set(set).where('id', '=', id).execute();
      }
      await recountTenant(trx, dialect, tenant.id);
    });
    const all = await kysely
      .selectFrom('payments')
      .select(['id', 'account_id', 'status', 'currency', 'card_brand', 'amount', sql<string>`created_at`.as('created_at')])
      .where('tenant_id', '=', tenant.id)
      .execute();
    rows = all.map((r) => ({ ...r, amount: Number(r.amount), at: new Date(r.created_at).getTime() }));
  });
  afterAll(() => t.close());

  /** The oracle: the matching rows in list order. */
  function expected(
    filters: Partial<Record<'status' | 'currency' | 'card_brand' | 'account_id', string[]>>,
    ranges: Array<[string, Op, number]>,
    sort: string,
  ) {
    const [column, desc] = [sort.replace('-', ''), sort.startsWith('-')];
    const value = (r: Row, c: string) => (c === 'created_at' ? r.at : r.amount);
    return rows
      .filter((r) => Object.entries(filters).every(([d, vs]) => vs.includes(r[d as keyof Row] as string)))
      .filter((r) => ranges.every(([c, op, b]) => HOLDS[op](value(r, c), b)))
      .sort((a, b) => (value(a, column) - value(b, column) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) * (desc ? -1 : 1))
      .map((r) => r.id);
  }

  async function check(
    filters: Partial<Record<'status' | 'currency' | 'card_brand' | 'account_id', string[]>>,
    ranges: Array<[string, Op, number]>,
    sort: string,
    deepStrategy?: string | string[],
  ): Promise<Set<string>> {
    const seen = new Set<string>();
    const want = expected(filters, ranges, sort);
    const query = [
      ...Object.entries(filters).map(([d, vs]) => `filter[${d}]=${vs.join(',')}`),
      ...ranges.map(([c, op, b]) => `filter[${c}][${op}]=${encodeURIComponent(c === 'created_at' ? iso(b) : String(b))}`),
      `sort=${sort}`,
    ].join('&');
    const perPage = 7;
    const last = Math.max(1, Math.ceil(want.length / perPage));
    for (const page of new Set([1, 2, 3, Math.ceil(last / 2), last - 1, last, last + 1].filter((p) => p >= 1))) {
      const response = await t.get(`/v3/payments?${query}&per_page=${perPage}&page=${page}`, key);
      expect(response.status, query).toBe(200);
      expect(response.body.meta.total, `${query} total`).toBe(want.length);
      expect(
        response.body.data.map((p: { id: string }) => p.id),
        `${query} page ${page}`,
      ).toEqual(want.slice((page - 1) * perPage, page * perPage));
      // From page 2 on a page is a deep one (plainOffsetUpTo 3).
      const strategy = String(response.headers['x-page-strategy']);
      seen.add(strategy);
      if (deepStrategy && page >= 2 && page <= last) expect([deepStrategy].flat(), `${query} page ${page}: ${strategy}`).toContain(strategy);
    }
    return seen;
  }

  /** `check`, and the middle page (a deep one, past page 3) placed by bucket counts. */
  async function checkPlacedByBuckets(filters: Record<string, string[]>, ranges: Array<[string, Op, number]>, sort: string) {
    await check(filters, ranges, sort);
    const query = [
      ...Object.entries(filters).map(([d, vs]) => `filter[${d}]=${vs.join(',')}`),
      ...ranges.map(([c, op, b]) => `filter[${c}][${op}]=${encodeURIComponent(c === 'created_at' ? iso(b) : String(b))}`),
      `sort=${sort}`,
    ].join('&');
    const middle = Math.ceil(expected(filters, ranges, sort).length / 7 / 2);
    expect(middle, query).toBeGreaterThan(3);
    const response = await t.get(`/v3/payments?${query}&per_page=7&page=${middle}`, key);
    expect(response.headers['x-page-strategy'], query).toMatch(/^buckets/);
  }

  const pick = <K extends keyof Row>(k: K, i: number) => [...new Set(rows.map((r) => r[k]))].sort()[i] as string;

  it('of created_at ranges on bucket edges, a millisecond off them and on records’ own times, alone and with each counted filter', async () => {
    const edge = Date.parse('2026-08-01T00:00:00Z');
    const own = [...rows].sort((a, b) => a.at - b.at)[Math.floor(rows.length / 3)].at;
    const ranges: Array<Array<[string, Op, number]>> = [
      [['created_at', 'gte', edge]],
      [['created_at', 'gt', edge]],
      [['created_at', 'lt', edge]],
      [['created_at', 'lte', edge]],
      [
        ['created_at', 'gte', edge],
        ['created_at', 'lt', edge + 47 * DAY],
      ],
      [
        ['created_at', 'gt', edge - 1],
        ['created_at', 'lte', edge + 3_600_000 + 1],
      ],
      [
        ['created_at', 'gte', edge + 300_000],
        ['created_at', 'lt', edge + 600_000],
      ],
      [
        ['created_at', 'gte', own],
        ['created_at', 'lte', own + 20 * DAY],
      ],
      [
        ['created_at', 'gt', own],
        ['created_at', 'lt', own + 1],
      ],
    ];
    const filters = [
      {},
      { status: ['succeeded'] },
      { status: ['succeeded', 'failed'] },
      { currency: [pick('currency', 0)] },
      { card_brand: ['visa', 'amex'] },
      { account_id: [pick('account_id', 1)] },
      { status: ['succeeded'], currency: [pick('currency', 0)] },
    ];
    for (const f of filters) for (const r of ranges) await check(f, r, f === filters[0] || 'status' in f ? '-created_at' : 'created_at');
  }, 300_000);

  it('of a currency or a card brand: deep pages placed by the slice’s own bucket counts', async () => {
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.currency, (counts.get(r.currency) ?? 0) + 1);
    const commonest = [...counts].sort((a, b) => b[1] - a[1])[0][0];
    const cases: Array<[Record<string, string[]>, string]> = [
      [{ currency: [commonest] }, '-amount'],
      [{ card_brand: ['visa'] }, 'created_at'],
      [{ card_brand: ['visa', 'mastercard'] }, '-created_at'],
    ];
    for (const [filters, sort] of cases) {
      await check(filters, [], sort);
      const query = `${Object.entries(filters).map(([d, vs]) => `filter[${d}]=${vs.join(',')}`)}&sort=${sort}`;
      const middle = Math.ceil(expected(filters, [], sort).length / 7 / 2);
      expect(middle, query).toBeGreaterThan(3);
      const response = await t.get(`/v3/payments?${query}&per_page=7&page=${middle}`, key);
      expect(response.headers['x-page-strategy'], query).toMatch(/^buckets/);
    }
  }, 300_000);

  it('sorted by the range’s column: deep pages placed by the slice’s bucket counts, either direction', async () => {
    const edge = Date.parse('2026-08-01T00:00:00Z');
    const cases: Array<[Record<string, string[]>, Array<[string, Op, number]>, string]> = [
      [
        {},
        [
          ['created_at', 'gte', edge],
          ['created_at', 'lt', edge + 40 * DAY],
        ],
        'created_at',
      ],
      [
        {},
        [
          ['created_at', 'gt', edge],
          ['created_at', 'lte', edge + 40 * DAY],
        ],
        '-created_at',
      ],
      [{ status: ['succeeded', 'failed'] }, [['created_at', 'gte', edge - 30 * DAY]], '-created_at'],
      [{}, [['amount', 'gte', 1000]], 'amount'],
      [
        { card_brand: ['visa'] },
        [
          ['amount', 'gt', 999],
          ['amount', 'lte', 50_000],
        ],
        '-amount',
      ],
      [{ account_id: [pick('account_id', 1)] }, [['created_at', 'lt', edge]], 'created_at'],
    ];
    for (const [filters, ranges, sort] of cases) await checkPlacedByBuckets(filters, ranges, sort);
  }, 300_000);

  it('of two counted dimensions and a range on the sort’s column: totals and deep pages from the pair’s own bucket counts', async () => {
    // A pair of status, currency and card brand (countedSlices.ts BUCKETED_SLICES, migration 0031),
    // one value or several in each, beside a created_at or amount range on bucket edges and off them.
    const edge = Date.parse('2026-08-01T00:00:00Z');
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.currency, (counts.get(r.currency) ?? 0) + 1);
    const [c0, c1] = [...counts].sort((a, b) => b[1] - a[1]).map(([c]) => c);
    const cases: Array<[Record<string, string[]>, Array<[string, Op, number]>, string]> = [
      [
        { status: ['succeeded'], currency: [c0] },
        [
          ['created_at', 'gte', edge - 60 * DAY],
          ['created_at', 'lt', edge + 40 * DAY],
        ],
        'created_at',
      ],
      [{ status: ['succeeded', 'failed'], card_brand: ['visa', 'mastercard'] }, [['amount', 'gte', 1000]], 'amount'],
      [
        { currency: [c0, c1], card_brand: ['mastercard', 'visa'] },
        [
          ['amount', 'gt', 999],
          ['amount', 'lte', 50_000],
        ],
        '-amount',
      ],
      [{ status: ['succeeded'], card_brand: ['visa'] }, [['created_at', 'lt', edge + 1]], '-created_at'],
      [{ currency: [c1], status: ['succeeded', 'refunded', 'failed'] }, [['created_at', 'gt', edge - 3_600_000 - 1]], 'created_at'],
    ];
    for (const [filters, ranges, sort] of cases) await checkPlacedByBuckets(filters, ranges, sort);
    // Three of them are no bucketed slice: still exact, counted row by row.
    await check({ status: ['succeeded'], currency: [c0], card_brand: ['visa'] }, [['amount', 'gte', 1000]], 'amount');
  }, 300_000);

  it('sorted by the range’s column, ranges alike but for the buckets before them: each deep page placed by its own runs', async () => {
    // A deep page's statement is kept per shape (statementTemplates.ts); these ranges share every
    // part of it but the slice's runs of buckets before the range: from a 16-day edge those are one
    // run of 16-day buckets, a day later one more of days, and an hour later one more of hours.
    const sixteenDays = 16 * DAY;
    const edge = Math.ceil(Date.parse('2026-08-01T00:00:00Z') / sixteenDays) * sixteenDays;
    for (const start of [edge, edge + DAY, edge + DAY + 3_600_000, edge + sixteenDays]) {
      for (const sort of ['created_at', '-created_at']) {
        await check(
          {},
          [
            ['created_at', 'gte', start],
            ['created_at', 'lt', start + 3 * DAY],
          ],
          sort,
        );
        await check(
          { status: ['succeeded'] },
          [
            ['created_at', 'gte', start],
            ['created_at', 'lt', start + 5 * DAY],
          ],
          sort,
        );
      }
    }
  }, 300_000);

  it('of amount ranges on bucket edges and records’ own amounts, sorted by amount or by time', async () => {
    const own = [...rows].sort((a, b) => a.amount - b.amount)[Math.floor(rows.length / 2)].amount;
    const ranges: Array<Array<[string, Op, number]>> = [
      [['amount', 'gte', 1000]],
      [['amount', 'gt', 999]],
      [['amount', 'lte', 10_000]],
      [
        ['amount', 'gte', 1000],
        ['amount', 'lt', 12_300],
      ],
      [
        ['amount', 'gte', own],
        ['amount', 'lte', own * 3],
      ],
      [
        ['amount', 'gt', own],
        ['amount', 'lt', own + 1],
      ],
    ];
    const filters = [
      {},
      { status: ['succeeded', 'refunded'] },
      { currency: [pick('currency', 0)] },
      { card_brand: ['mastercard'] },
      { account_id: [pick('account_id', 0)] },
    ];
    for (const [i, f] of filters.entries()) for (const r of ranges) await check(f, r, ['amount', '-amount', '-created_at'][i % 3]);
  }, 300_000);

  it('of amount ranges made of whole amount classes, sorted by time: deep pages placed by the classes’ created_at buckets, rows on class edges', async () => {
    const range = (...bounds: Array<[Op, number]>) => bounds.map(([op, b]): [string, Op, number] => ['amount', op, b]);
    // Ends open, 0, a one-significant-digit R or R + 1 (gt R, lte R): runs of whole classes.
    const whole = [
      range(['gte', 1000]),
      range(['gt', 999]),
      range(['lt', 1000]),
      range(['lte', 9999]),
      range(['gte', 1000], ['lt', 10_000]),
      range(['gt', 99], ['lte', 99_999]),
      range(['gte', 10], ['lt', 100]),
      range(['gte', 0], ['lt', 100_000]),
      range(['gte', 5000]),
      range(['gt', 5000]),
      range(['lt', 5000]),
      range(['lte', 5000]),
      range(['gte', 1000], ['lte', 5000]),
      range(['gt', 20], ['lt', 500]),
      range(['gte', 1001]),
      range(['lte', 10_000]),
      range(['gt', 10], ['lte', 20]),
      range(['gte', 5000], ['lte', 5000]),
      range(['gte', 9], ['lte', 10]),
    ];
    // Ends with two significant digits (R, gt R - 1, lte R - 1, gt R, lte R): runs of whole classes of 0025's kind too, placed down to the day.
    const twoDigits = [
      range(['gte', 1500]),
      range(['gt', 1499]),
      range(['gt', 1500]),
      range(['lt', 2500]),
      range(['lte', 2500]),
      range(['lte', 2499]),
      range(['gte', 120], ['lt', 350]),
      range(['gte', 120], ['lte', 350]),
      range(['gt', 15], ['lte', 99]),
      range(['gte', 35_000]),
      range(['gte', 1500], ['lt', 2500]),
      range(['gt', 999], ['lte', 1500]),
    ];
    // Off every class edge (three significant digits and more): the nearest run of whole classes less (or plus) a
    // sliver of amounts between the end and the class edge, counted row by row per bucket, placed the same way.
    const partial = [
      range(['gte', 1510]),
      range(['gt', 1509]),
      range(['gt', 1510]),
      range(['lt', 1510]),
      range(['lte', 1510]),
      range(['gt', 1001]),
      range(['lte', 4998]),
      range(['gte', 21], ['lt', 5002]),
      range(['gte', 125], ['lt', 350]),
      range(['gte', 125], ['lte', 345]),
      range(['gte', 2345]),
      range(['lt', 2345]),
      range(['gte', 1599]),
      range(['gt', 12_345]),
      range(['gte', 12_345], ['lt', 35_000]),
    ];
    // Narrower than the slivers that would meet its ends: still read row by row (exact all the same).
    const narrow = [range(['gte', 1510], ['lt', 1520]), range(['gt', 2345], ['lte', 2350])];
    // SQLite reads a range that holds few rows from its own index, its ids sorted there, at any
    // depth (rangePlans.ts): cheaper than walking to its few rows from the bucket that places them.
    const placedOrSorted = TEST_DIALECT === 'sqlite' ? ['buckets', 'sorted-ids', 'sorted-ids-from-end'] : ['buckets'];
    // SQLite weighs a sliver's rows against a walk to the page from the nearer end (rangePlans.ts,
    // sliversAreCheaper): near either end of these small lists the walk is the cheaper.
    const offEdgeWays = TEST_DIALECT === 'sqlite' ? [...placedOrSorted, 'skip-hops', 'skip-hops-from-end', 'offset', 'offset-from-end'] : placedOrSorted;
    const seen = new Set<string>();
    const seenOffEdges = new Set<string>();
    for (const f of [{}, { currency: [pick('currency', 0)] }, { currency: [pick('currency', 1)] }]) {
      for (const sort of ['-created_at', 'created_at']) {
        for (const r of [...whole, ...twoDigits]) for (const s of await check(f, r, sort, placedOrSorted)) seen.add(s);
        for (const r of partial) for (const s of await check(f, r, sort, offEdgeWays)) seenOffEdges.add(s);
        for (const r of narrow) await check(f, r, sort);
      }
    }
    // The ranges off every class edge were placed too (SQLite reads the narrow ones from their index).
    expect([...seenOffEdges].filter((s) => s.startsWith('buckets'))).not.toEqual([]);
    // Both ways were taken, every page of both exact.
    expect([...seen].filter((s) => s.startsWith('buckets'))).not.toEqual([]);
    if (TEST_DIALECT === 'sqlite') expect([...seen].filter((s) => s.startsWith('sorted-ids'))).not.toEqual([]);
  }, 300_000);
});
