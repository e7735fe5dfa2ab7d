import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { seed } from '../support/seedHelpers.ts';
import { TEST_DIALECT } from '../support/testDatabase.ts';
import { explainPlan } from '../../scripts/explain/explainPlan.ts';
import { exportStatements } from '../../src/exports/exportStatements.ts';
import { parseQueryString } from '../../src/http/parseQueryString.ts';
import { parseListQuery, type RawListQuery } from '../../src/lists/request/parseListQuery.ts';
import { paymentListSpec } from '../../src/payments/paymentListSpec.ts';

describe('an export’s statements', () => {
  let t: TestContext;
  let tenantId: string;
  let last4: string;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await t.tenant('exported-card');
    tenantId = tenant.id;
    await seed(t.database.db, 'exported-card', 3, 600);
    key = tenant.key;
    last4 = (await t.get('/v3/payments?per_page=1', key)).body.data[0].card.last4;
  });
  afterAll(() => t.close());

  const statementsOf = (search: string) =>
    exportStatements(
      t.database.db.kysely,
      t.database.db.dialect,
      'payments',
      { tenantId },
      parseListQuery(paymentListSpec, parseQueryString(search) as RawListQuery),
    );

  const cardSearches = [
    (l: string) => `filter[card_last4]=${l}&filter[amount][gte]=1000`,
    (l: string) => `filter[card_last4]=${l}&filter[status]=succeeded,failed&sort=-amount`,
    (l: string) => `filter[card_last4]=${l},0000&filter[currency]=EUR,USD&sort=amount`,
  ];

  it.each(cardSearches)('export exactly the records a card’s list holds, in its order, with its total', async (search) => {
    const listed = await t.get(`/v3/payments?per_page=5000&${search(last4)}`, key);
    const response = await t.app.inject({ method: 'GET', url: `/v3/payments/export?${search(last4)}`, headers: { authorization: `Bearer ${key}` } });
    expect(response.statusCode).toBe(200);
    const lines = response.body.trim().split('\n').slice(0, -1);
    expect(lines.map((l) => JSON.parse(l))).toEqual(listed.body.data);
    expect(listed.body.data.length).toBeGreaterThan(0);
    expect(Number(response.headers['x-total-count'])).toBe(listed.body.meta.total);
  });

  it.runIf(TEST_DIALECT === 'sqlite').each(cardSearches)(
    'count and read a card’s payments in the last-four index on SQLite, not along another filter’s (keyedFilters.ts)',
    async (search) => {
      const { total, rows } = await statementsOf(search(last4));
      for (const statement of [total, rows]) {
        const plan = await explainPlan(t.database.db.kysely, t.database.db.dialect, statement);
        // The rows then read by id (the primary key), as a sorted-ids page's are.
        expect(
          plan.indexes.filter((i) => !i.startsWith('sqlite_autoindex')),
          plan.lines.join('\n'),
        ).toEqual(['payments_tenant_last4']);
      }
    },
  );
});
