import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredEvents } from '../../src/events/purgeEvents.ts';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { card, CARDS } from '../support/cards.ts';

describe('events: one per change, written with it', () => {
  let t: TestContext;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('eventful')).key;
  });
  afterAll(() => t.close());

  const post = (url: string, body: unknown, headers?: Record<string, string>) => t.send('POST', url, key, body, headers);
  const events = async (query = '') => (await t.get(`/v3/events?per_page=100${query}`, key)).body;

  /** Every change the API offers, and the event types it must leave, in order. */
  async function everyChange() {
    const account = (await post('/v3/accounts', { name: 'Ada', email: 'ada@example.com', currency: 'EUR' })).body.data;
    await t.send('PATCH', `/v3/accounts/${account.id}`, key, { name: 'Ada L.' });
    const pay = (body: object) => post('/v3/payments', { account_id: account.id, amount: 1000, currency: 'EUR', card: card(), ...body });
    const captured = (await pay({})).body.data;
    const authorized = (await pay({ capture: false })).body.data;
    await post(`/v3/payments/${authorized.id}/capture`, {});
    const toCancel = (await pay({ capture: false })).body.data;
    await post(`/v3/payments/${toCancel.id}/cancel`, undefined);
    await post(`/v3/payments/${captured.id}/refunds`, { amount: 400 });
    await post(`/v3/payments/${captured.id}/refunds`, {});
    await pay({ card: card(CARDS.declined) });
    const empty = (await post('/v3/accounts', { name: 'Gone', email: 'gone@example.com', currency: 'EUR' })).body.data;
    await t.send('DELETE', `/v3/accounts/${empty.id}`, key);
    await t.send('PATCH', `/v3/accounts/${account.id}`, key, { status: 'closed' });
    return { account, captured, empty };
  }

  it('records every change as one event of its type, oldest first, with the resource after the change', async () => {
    const { account, captured, empty } = await everyChange();
    const page = await events();
    expect(page.data.map((e: { type: string }) => e.type)).toEqual([
      'account.created',
      'account.updated',
      'payment.created',
      'payment.succeeded',
      'payment.created',
      'payment.authorized',
      'payment.succeeded',
      'payment.created',
      'payment.authorized',
      'payment.canceled',
      'payment.partially_refunded',
      'payment.refunded',
      'payment.created',
      'payment.failed',
      'account.created',
      'account.deleted',
      'account.closed',
    ]);
    expect(page.meta.total).toBe(17);
    for (const e of page.data) expect(e.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    const refunded = page.data.filter((e: { data: { id: string } }) => e.data.id === captured.id);
    expect(refunded.at(-1).data).toMatchObject({ status: 'refunded', amount_refunded: 1000 });
    expect(page.data.at(-1).data).toEqual((await t.get(`/v3/accounts/${account.id}`, key)).body.data);
    expect(page.data.find((e: { type: string }) => e.type === 'account.deleted').data.id).toBe(empty.id);
    expect(JSON.stringify(page.data)).not.toContain(CARDS.visa);
  });

  it('filters by type, resource and time, with exact totals, and shows one event', async () => {
    const all = (await events()).data;
    const succeeded = await events('&filter[type]=payment.succeeded,payment.failed');
    expect(succeeded.meta.total).toBe(all.filter((e: { type: string }) => ['payment.succeeded', 'payment.failed'].includes(e.type)).length);
    const paymentId = all.find((e: { type: string }) => e.type === 'payment.refunded').data.id;
    const ofOne = await events(`&filter[resource_id]=${paymentId}`);
    expect(ofOne.data.map((e: { type: string }) => e.type)).toEqual(['payment.created', 'payment.succeeded', 'payment.partially_refunded', 'payment.refunded']);
    expect(ofOne.meta.total).toBe(4);
    const after = await events(`&filter[created_at][gt]=${encodeURIComponent(all[5].created_at)}`);
    expect(after.data.every((e: { created_at: string }) => e.created_at > all[5].created_at)).toBe(true);
    const one = await t.get(`/v3/events/${all[0].id}`, key);
    expect(one.body).toEqual({ data: all[0] });
    expect((await t.get('/v3/events?per_page=5&page=2', key)).body.meta).toMatchObject({ total: all.length, per_page: 5, current_page: 2 });
  });

  it('creates no event for an idempotent replay', async () => {
    const before = (await events()).meta.total;
    const body = { name: 'Once', email: 'once@example.com', currency: 'USD' };
    const first = await post('/v3/accounts', body, { 'idempotency-key': 'replayed-once' });
    const again = await post('/v3/accounts', body, { 'idempotency-key': 'replayed-once' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await events()).meta.total).toBe(before + 1);
  });

  it('shows a tenant only its own events', async () => {
    const other = await t.tenant('other-events');
    const mine = (await events()).data[0];
    expect((await t.get('/v3/events', other.key)).body.meta.total).toBe(0);
    expect((await t.get(`/v3/events/${mine.id}`, other.key)).status).toBe(404);
    expect((await t.get('/v3/events/evt_nope', key)).status).toBe(404);
  });

  it('purges events past their retention in batches, and the totals with them', async () => {
    const total = (await events()).meta.total;
    expect(await purgeExpiredEvents(t.database.db, 30, Date.now())).toBe(0);
    expect(await purgeExpiredEvents(t.database.db, 30, Date.now() + 31 * 86_400_000, 7)).toBe(total);
    const after = await events();
    expect(after.meta.total).toBe(0);
    expect(after.data).toEqual([]);
  });
});
