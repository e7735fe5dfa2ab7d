import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card } from '../support/cards.ts';
import { seed } from '../support/seedHelpers.ts';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { TEST_PG_POOLER } from '../support/testDatabase.ts';

/**
 * Sixteen clients at once, reading lists of every shape and writing payments (some with the same
 * Idempotency-Key at once), as an operator's traffic would. Run by the `pgbouncer` project through a
 * transaction-pooling PgBouncer with 5 server connections, where named statements and startup
 * settings used to make 71 % of these answers 500s; by the others directly.
 */
describe(`mixed reads and writes at once (PG_POOLER=${TEST_PG_POOLER})`, () => {
  let t: TestContext;
  let key: string;
  let accounts: string[];
  beforeAll(async () => {
    t = await createTestApp();
    const seeded = await seed(t.database.db, 'load', 6, 300);
    const tenant = await t.tenant('load');
    expect(tenant.id).toBe(seeded.tenantId);
    key = tenant.key;
    accounts = (await t.database.db.kysely.selectFrom('accounts').select('id').where('tenant_id', '=', seeded.tenantId).execute()).map((a) => a.id);
  });
  afterAll(() => t.close());

  it('answers every request, none with a 5xx, and every created payment is there afterwards', async () => {
    const reads = [
      '/v3/payments?per_page=10',
      '/v3/payments?per_page=10&page=25',
      '/v3/payments?sort=-amount&per_page=5&page=40',
      '/v3/payments?filter[status]=succeeded,failed&sort=-created_at&page=12&per_page=7',
      '/v3/payments?filter[currency]=EUR&per_page=20',
      '/v3/payments?filter[created_at][gte]=2026-06-01T00:00:00Z&per_page=5&page=3',
      '/v3/payments?per_page=1000',
      '/v3/accounts?per_page=3&page=2',
      '/v3/events?per_page=5',
    ];
    const answers: Array<{ what: string; status: number; body: string }> = [];
    const created: string[] = [];
    const client = async (c: number) => {
      for (let i = 0; i < 14; i++) {
        const n = c * 100 + i;
        if (i % 3 === 2) {
          const idempotencyKey = `load-${Math.floor(n / 2)}`; // two clients at once may share one
          const response = await t.send(
            'POST',
            '/v3/payments',
            key,
            { account_id: accounts[n % accounts.length], amount: 100 + n, currency: 'EUR', card: card() },
            { 'idempotency-key': idempotencyKey },
          );
          answers.push({ what: `POST ${idempotencyKey}`, status: response.status, body: JSON.stringify(response.body) });
          if (response.status === 201) created.push(response.body.data.id);
        } else {
          const url = reads[n % reads.length];
          const response = await t.get(url, key);
          answers.push({ what: url, status: response.status, body: JSON.stringify(response.body).slice(0, 300) });
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, c) => client(c)));
    const failed = answers.filter((a) => a.status >= 500);
    expect(failed).toEqual([]);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 201 && a.status !== 409)).toEqual([]);
    expect(created.length).toBeGreaterThan(0);
    for (const id of created) expect((await t.get(`/v3/payments/${id}`, key)).status).toBe(200);
  });
});
