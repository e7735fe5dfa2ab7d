import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQueryString } from '../../../src/http/parseQueryString.ts';
import { DEFAULT_TUNING } from '../../../src/lists/plan/listTuning.ts';
import type { RangedShape } from '../../../src/lists/plan/pagePlan.ts';
import { nextQuestion, pageRequestOf } from '../../../src/lists/plan/planPage.ts';
import { parseListQuery, type RawListQuery } from '../../../src/lists/request/parseListQuery.ts';
import { rangeShareSelect } from '../../../src/lists/sql/listPageQueries.ts';
import { rangeShareCompiled } from '../../../src/lists/sql/pageTemplates.ts';
import { paymentListSpec } from '../../../src/payments/paymentListSpec.ts';
import { seed } from '../../support/seedHelpers.ts';
import { createTestApp, type TestContext } from '../../support/testApp.ts';

/** The ranged list a SQLite page of `query` asks its range's counts of (the planner's own question), if it asks. */
function rangedList(tenantId: string, query: string, accountId?: string): RangedShape | undefined {
  const request = pageRequestOf(
    'sqlite',
    DEFAULT_TUNING,
    'payments',
    { tenantId, ...(accountId ? { accountId } : {}) },
    parseListQuery(paymentListSpec, parseQueryString(query) as RawListQuery),
    { page: 1, perPage: 10, offset: 0 },
  );
  const question = nextQuestion(request, {});
  return question?.ask === 'range-share' ? question.list : undefined;
}

/**
 * The counts a SQLite range plan is chosen from are read through a template per list shape
 * (pageTemplates.ts rangeShareCompiled): the same counts as the statement built for the request
 * alone, whatever shape came before with other values, changes not yet folded included.
 */
describe('a ranged list’s counts from its shape’s template', () => {
  let t: TestContext;
  const tenants: Array<{ id: string; key: string; account: string }> = [];

  beforeAll(async () => {
    // No fold: the counts read changes not folded yet as well.
    t = await createTestApp({ countFold: false });
    for (const name of ['share-a', 'share-b']) {
      const { id, key } = await t.tenant(name);
      await seed(t.database.db, name, 4, 900, name);
      const account = (await t.get('/v3/accounts?per_page=1', key)).body.data[0];
      for (let i = 0; i < 12; i++) {
        const created = await t.send('POST', '/v3/payments', key, {
          account_id: account.id,
          amount: 700 + i * 450,
          currency: account.currency,
          card: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvc: '123' },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
      }
      tenants.push({ id, key, account: account.id });
    }
  }, 120_000);
  afterAll(() => t.close());

  const shapes = [
    'filter[amount][gte]=1000',
    'filter[amount][gte]=1000&filter[currency]=EUR',
    'filter[amount][gte]=1000&filter[currency]=USD',
    'filter[amount][gte]=1500&filter[amount][lt]=40000',
    'filter[amount][gte]=1000&filter[amount][lt]=10000&filter[currency]=EUR&sort=amount',
    'filter[amount][lte]=100',
    'filter[created_at][gte]=2026-08-01T00:00:00Z&filter[created_at][lt]=2026-09-01T00:00:00Z&sort=amount',
    'filter[created_at][gte]=2026-09-01T00:00:00Z&filter[created_at][lt]=2026-10-01T00:00:00Z&filter[status]=succeeded&sort=-amount',
    'filter[created_at][gte]=2026-07-15T12:00:00Z&filter[status]=failed&sort=-amount',
  ];

  it('answers what the statement built for the request answers, shape after shape, tenant after tenant, one account’s list too', async () => {
    const { kysely } = t.database.db;
    const compared = new Set<string>();
    for (const query of shapes) {
      for (const tenant of tenants) {
        for (const accountId of [undefined, tenant.account]) {
          const list = rangedList(tenant.id, query, accountId);
          if (!list) continue;
          const [fromTemplate] = (await kysely.executeQuery<{ slice: number; covered: number }>(rangeShareCompiled(kysely, list))).rows;
          const built = rangeShareSelect(kysely, list.table, list.scope, list.ranged).compile();
          const [fromBuilt] = (await kysely.executeQuery<{ slice: number; covered: number }>(built)).rows;
          const counts = (row: { slice: number; covered: number }) => ({ slice: Number(row.slice), covered: Number(row.covered) });
          expect(counts(fromTemplate), `${query}${accountId ? ' (one account)' : ''}`).toEqual(counts(fromBuilt));
          // A list of what it reads: the slice's own total is the list's total without its range.
          const whole = query.replace(/filter\[(amount|created_at)\]\[[a-z]+\]=[^&]*&?/g, '').replace(/&$/, '');
          const path = accountId ? `/v3/accounts/${accountId}/payments` : '/v3/payments';
          const total = (await t.get(`${path}?per_page=1${whole ? `&${whole}` : ''}`, tenant.key)).body.meta.total;
          expect(counts(fromTemplate).slice).toBe(total);
          compared.add(`${query}${accountId ? ' (one account)' : ''}`);
        }
      }
    }
    // Ranges of either column, with and without a counted filter, the whole tenant's and one account's.
    expect(compared.size).toBeGreaterThanOrEqual(12);
  });
});
