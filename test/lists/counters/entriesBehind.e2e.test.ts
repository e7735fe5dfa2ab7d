import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { CARDS } from '../../support/cards.ts';
import { foldAll } from '../../support/foldAll.ts';

/**
 * A payment's metadata entries carry its status and amount, rewritten by the fold after a capture,
 * cancel or refund: until then a metadata search beside a status filter, or in amount order,
 * must not trust them.
 */
describe('a metadata search while captures wait to be folded', () => {
  let t: TestContext;
  let key: string;
  const ids: string[] = [];
  beforeAll(async () => {
    t = await createTestApp({ countFold: false });
    ({ key } = await t.tenant('entries-behind'));
    const account = await t.send('POST', '/v3/accounts', key, { name: 'A', email: 'a@example.com', currency: 'EUR' });
    for (const amount of [500, 700, 900]) {
      const card = { number: CARDS.visa, exp_month: 12, exp_year: 2030, cvc: '123' };
      const body = { account_id: account.body.data.id, amount, currency: 'EUR', capture: false, card, metadata: { channel: 'web' } };
      const created = await t.send('POST', '/v3/payments', key, body);
      expect(created.status).toBe(201);
      ids.push(created.body.data.id);
    }
    await foldAll(t.database.db);
    // Captured for less than authorized (its amount moves) and left unfolded.
    expect((await t.send('POST', `/v3/payments/${ids[2]}/capture`, key, { amount: 100 })).status).toBe(200);
    expect((await t.send('POST', `/v3/payments/${ids[1]}/cancel`, key)).status).toBe(200);
  });
  afterAll(() => t.close());

  const found = async (query: string) => {
    const page = await t.get(`/v3/payments?filter[metadata][channel]=web&${query}`, key);
    expect(page.status).toBe(200);
    return { ids: page.body.data.map((p: { id: string }) => p.id), total: page.body.meta.total };
  };

  it('finds each payment by its status now, not the status its entries still carry', async () => {
    expect(await found('filter[status]=succeeded')).toEqual({ ids: [ids[2]], total: 1 });
    expect(await found('filter[status]=authorized')).toEqual({ ids: [ids[0]], total: 1 });
    expect(await found('filter[status]=canceled&per_page=1&page=1')).toEqual({ ids: [ids[1]], total: 1 });
  });

  it('orders and ranges by the amount now', async () => {
    expect((await found('sort=amount')).ids).toEqual([ids[2], ids[0], ids[1]]);
    expect(await found('filter[amount][lte]=600&sort=-created_at')).toEqual({ ids: [ids[2], ids[0]], total: 2 });
  });

  it('answers the same once the changes are folded', async () => {
    await foldAll(t.database.db);
    expect(await found('filter[status]=succeeded')).toEqual({ ids: [ids[2]], total: 1 });
    expect((await found('sort=amount')).ids).toEqual([ids[2], ids[0], ids[1]]);
  });

  it('reads the entries still when the payments moved meanwhile hold none of the searched values', async () => {
    const account = (await t.get('/v3/accounts', key)).body.data[0].id;
    const card = { number: CARDS.visa, exp_month: 12, exp_year: 2030, cvc: '123' };
    const other = await t.send('POST', '/v3/payments', key, {
      account_id: account,
      amount: 300,
      currency: 'EUR',
      capture: false,
      card,
      metadata: { channel: 'pos' },
    });
    expect((await t.send('POST', `/v3/payments/${other.body.data.id}/capture`, key)).status).toBe(200);
    const page = await t.get('/v3/payments?filter[metadata][channel]=web&sort=amount', key);
    expect(page.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[0], ids[1]]);
    expect(page.headers['x-page-strategy']).toBe('entries');
  });
});
