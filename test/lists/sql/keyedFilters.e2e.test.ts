import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEveryPage } from '../../support/everyPage.ts';
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { TEST_DIALECT } from '../../support/testDatabase.ts';
import { seed } from '../../support/seedHelpers.ts';

interface Row {
  id: string;
  status: string;
  currency: string;
  card_last4: string;
  reference: string | null;
  amount: number;
  at: number;
}

/** Test cards whose last four digits the seeded payments' random cards share with none (or few). */
const COMMON = { number: '4242424242424242', last4: '4242', payments: 150 };
const RARE = { number: '5555555555554444', last4: '4444', payments: 20 };

/**
 * Lists filtered by a column of many values (a card's last four digits, a reference), alone and
 * with counted filters, in every order: the total and every page next to the same rows sorted in
 * the test. On SQLite the counts choose how such a list is read (lists/sql/keyedFilters.ts): a
 * common card's first page walks the sort's index, a rare card's pages and a common card's deep
 * ones read the card's own index and sort the ids; both ways must give the same rows.
 */
describe('lists filtered by a card’s last four digits or a reference: exact totals and pages', () => {
  let t: TestContext;
  let key: string;
  let rows: Row[];
  beforeAll(async () => {
    t = await createTestApp({ listTuning: { plainOffsetUpTo: 3, skipHop: 7 } });
    key = (await t.tenant('keyed')).key;
    await seed(t.database.db, 'keyed', 3, 1200);
    const accounts = (await t.get('/v3/accounts?per_page=3', key)).body.data.map((a: { id: string }) => a.id);
    for (const card of [COMMON, RARE]) {
      for (let i = 0; i < card.payments; i++) {
        const created = await t.send('POST', '/v3/payments', key, {
          account_id: accounts[i % accounts.length],
          amount: 100 + ((i * 7919) % 5000),
          currency: i % 3 === 0 ? 'EUR' : 'USD',
          reference: i % 50 === 0 ? 'ord_keyed' : undefined,
          card: { number: card.number, exp_month: 12, exp_year: 2031, cvc: '123' },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
      }
    }
    const { kysely } = t.database.db;
    const tenant = await kysely.selectFrom('tenants').select('id').where('name', '=', 'keyed').executeTakeFirstOrThrow();
    const all = await kysely
      .selectFrom('payments')
      .select(['id', 'status', 'currency', 'card_last4', 'reference', 'amount', sql<string>`created_at`.as('created_at')])
      .where('tenant_id', '=', tenant.id)
      .execute();
    rows = all.map((r) => ({ ...r, amount: Number(r.amount), at: new Date(r.created_at).getTime() }));
  }, 120_000);
  afterAll(() => t.close());

  type Filters = Partial<Record<'card_last4' | 'reference' | 'status' | 'currency', string[]>>;
  type Range = ['amount' | 'created_at', 'gte' | 'gt' | 'lte' | 'lt', number];
  const HOLDS = {
    gte: (a: number, b: number) => a >= b,
    gt: (a: number, b: number) => a > b,
    lte: (a: number, b: number) => a <= b,
    lt: (a: number, b: number) => a < b,
  };

  /** The oracle: the matching rows in list order. */
  function expected(filters: Filters, sort: string, ranges: Range[] = []) {
    const [column, desc] = [sort.replace('-', ''), sort.startsWith('-')];
    const columnValue = (r: Row, c: string) => (c === 'created_at' ? r.at : r.amount);
    const value = (r: Row) => columnValue(r, column);
    return rows
      .filter((r) => Object.entries(filters).every(([f, vs]) => vs.includes(r[f as keyof Row] as string)))
      .filter((r) => ranges.every(([c, op, b]) => HOLDS[op](columnValue(r, c), b)))
      .sort((a, b) => (value(a) - value(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) * (desc ? -1 : 1))
      .map((r) => r.id);
  }

  /** Every page checked; the strategies the pages were read by. */
  async function check(filters: Filters, sort: string, ranges: Range[] = []): Promise<Set<string>> {
    const want = expected(filters, sort, ranges);
    const query = [
      ...Object.entries(filters).map(([f, vs]) => `filter[${f}]=${vs.join(',')}`),
      ...ranges.map(([c, op, b]) => `filter[${c}][${op}]=${encodeURIComponent(c === 'created_at' ? new Date(b).toISOString() : String(b))}`),
      `sort=${sort}`,
    ].join('&');
    return new Set((await readEveryPage(t, key, query, want, 7)).values());
  }

  const SORTS = ['created_at', '-created_at', 'amount', '-amount'];

  it('of one card, a rare one and a common one, alone and with a status or a currency, in every order', async () => {
    const strategies = new Set<string>();
    const cases: Filters[] = [
      { card_last4: [COMMON.last4] },
      { card_last4: [RARE.last4] },
      { card_last4: [COMMON.last4], status: ['succeeded'] },
      { card_last4: [RARE.last4], currency: ['EUR'] },
      { card_last4: [COMMON.last4], status: ['succeeded', 'failed'], currency: ['USD'] },
    ];
    for (const filters of cases) for (const sort of SORTS) for (const s of await check(filters, sort)) strategies.add(s);
    // SQLite: both plans the counts choose between were taken (the same rows either way, checked above).
    if (TEST_DIALECT === 'sqlite') expect([...strategies]).toEqual(expect.arrayContaining(['offset', 'sorted-ids', 'sorted-ids-from-end']));
  }, 300_000);

  it('of several cards, a reference and a card nobody paid with', async () => {
    const seeded = rows.find((r) => r.card_last4 !== COMMON.last4 && r.card_last4 !== RARE.last4)?.card_last4 as string;
    const cases: Array<[Filters, string]> = [
      [{ card_last4: [COMMON.last4, RARE.last4, seeded] }, 'created_at'],
      [{ card_last4: [RARE.last4, seeded], status: ['succeeded'] }, '-amount'],
      [{ card_last4: ['0000'] }, 'amount'],
      [{ card_last4: ['0000'], status: ['succeeded'] }, 'created_at'],
      [{ reference: ['ord_keyed'] }, '-amount'],
      [{ reference: ['ord_keyed'], currency: ['EUR'] }, 'created_at'],
    ];
    for (const [filters, sort] of cases) await check(filters, sort);
  }, 300_000);

  it('of a card under an amount or a created_at range, alone and with a status, the range’s edges on the card’s own values', async () => {
    const common = rows.filter((r) => r.card_last4 === COMMON.last4);
    const amount = [...common].sort((a, b) => a.amount - b.amount)[Math.floor(common.length / 3)].amount;
    const at = [...rows].sort((a, b) => a.at - b.at)[Math.floor(rows.length / 2)].at;
    const cases: Array<[Filters, string, Range[]]> = [
      [{ card_last4: [COMMON.last4] }, 'created_at', [['amount', 'gte', amount]]],
      [{ card_last4: [COMMON.last4] }, '-amount', [['amount', 'gt', amount]]],
      [{ card_last4: [RARE.last4] }, 'amount', [['amount', 'lte', 3000]]],
      [{ card_last4: [COMMON.last4], status: ['succeeded'] }, '-created_at', [['amount', 'lt', amount]]],
      [{ card_last4: [COMMON.last4, RARE.last4] }, 'amount', [['created_at', 'gte', at]]],
      [{ card_last4: [COMMON.last4] }, '-created_at', [['created_at', 'lte', at]]],
      [
        { card_last4: [RARE.last4], currency: ['USD'] },
        'created_at',
        [
          ['amount', 'gte', 1000],
          ['amount', 'lt', 4000],
        ],
      ],
    ];
    const strategies = new Set<string>();
    for (const [filters, sort, ranges] of cases) for (const s of await check(filters, sort, ranges)) strategies.add(s);
    // SQLite: the card's ids read and sorted under a range too (the counts chose so).
    if (TEST_DIALECT === 'sqlite') expect([...strategies]).toContain('sorted-ids');
  }, 300_000);
});
