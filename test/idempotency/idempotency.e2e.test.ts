import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { card } from '../support/cards.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.ts';

describe('Idempotency-Key on every POST', () => {
  let t: TestContext;
  let key: string;
  let accountId: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('idem')).key;
    accountId = (await t.send('POST', '/v3/accounts', key, { name: 'Idem', email: 'i@example.com', currency: 'USD' })).body.data.id;
  });
  afterAll(() => t.close());

  const countPayments = async () => (await t.get(`/v3/accounts/${accountId}/payments`, key)).body.meta.total as number;
  const body = (amount = 700) => ({ account_id: accountId, amount, currency: 'USD', card: card() });

  it('replays the first response for the same key and request, creating nothing more', async () => {
    const before = await countPayments();
    const first = await t.send('POST', '/v3/payments', key, body(), { 'idempotency-key': 'order-1' });
    const again = await t.send('POST', '/v3/payments', key, body(), { 'idempotency-key': 'order-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await countPayments()).toBe(before + 1);
  });

  it('treats the same body with keys in another order as the same request', async () => {
    const a = await t.send('POST', '/v3/accounts', key, { name: 'N', email: 'n@example.com', currency: 'USD' }, { 'idempotency-key': 'acct-1' });
    const b = await t.send('POST', '/v3/accounts', key, { currency: 'USD', email: 'n@example.com', name: 'N' }, { 'idempotency-key': 'acct-1' });
    expect(b.body.data.id).toBe(a.body.data.id);
  });

  it('refuses the same key with a different request (422) and creates nothing', async () => {
    const before = await countPayments();
    await t.send('POST', '/v3/payments', key, body(100), { 'idempotency-key': 'order-2' });
    const other = await t.send('POST', '/v3/payments', key, body(200), { 'idempotency-key': 'order-2' });
    expect(other.status).toBe(422);
    expect(Object.keys(other.body.errors)).toEqual(['Idempotency-Key']);
    const elsewhere = await t.send('POST', `/v3/accounts`, key, { name: 'x', email: 'x@example.com', currency: 'USD' }, { 'idempotency-key': 'order-2' });
    expect(elsewhere.status).toBe(422);
    expect(await countPayments()).toBe(before + 1);
  });

  it('replays a definite refusal too', async () => {
    const payment = (await t.send('POST', '/v3/payments', key, body())).body.data;
    const first = await t.send('POST', `/v3/payments/${payment.id}/refunds`, key, { amount: 99999 }, { 'idempotency-key': 'refund-1' });
    const again = await t.send('POST', `/v3/payments/${payment.id}/refunds`, key, { amount: 99999 }, { 'idempotency-key': 'refund-1' });
    expect(first.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.body).toEqual(first.body);
  });

  it('makes a refund happen once however often it is retried', async () => {
    const payment = (await t.send('POST', '/v3/payments', key, body(1000))).body.data;
    for (let i = 0; i < 3; i++) await t.send('POST', `/v3/payments/${payment.id}/refunds`, key, { amount: 100 }, { 'idempotency-key': 'refund-2' });
    expect((await t.get(`/v3/payments/${payment.id}`, key)).body.data.amount_refunded).toBe(100);
  });

  it('creates exactly one record when concurrent requests share a key', async () => {
    const before = await countPayments();
    const responses = await Promise.all(Array.from({ length: 12 }, () => t.send('POST', '/v3/payments', key, body(4242), { 'idempotency-key': 'burst-1' })));
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1);
    for (const r of responses.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.headers['retry-after']).toBeDefined();
    }
    expect(await countPayments()).toBe(before + 1);
  });

  it('scopes keys to the tenant: another tenant may use the same key', async () => {
    const other = await t.tenant('idem-other');
    const otherAccount = (
      await t.send('POST', '/v3/accounts', other.key, { name: 'O', email: 'o@example.com', currency: 'USD' }, { 'idempotency-key': 'shared' })
    ).body.data;
    const mine = await t.send('POST', '/v3/accounts', key, { name: 'O', email: 'o@example.com', currency: 'USD' }, { 'idempotency-key': 'shared' });
    expect(mine.status).toBe(201);
    expect(mine.body.data.id).not.toBe(otherAccount.id);
  });

  it('keeps keys for 24 hours, then forgets them', async () => {
    const first = await t.send('POST', '/v3/accounts', key, { name: 'Old', email: 'old@example.com', currency: 'USD' }, { 'idempotency-key': 'aging' });
    const kysely = t.database.db.kysely;
    const age = (hours: number) =>
      kysely
        .updateTable('idempotency_keys')
        .set({ created_at: new Date(Date.now() - hours * 3600_000).toISOString() })
        .where('key', '=', 'aging')
        .execute();
    await age(23.9);
    expect(
      (await t.send('POST', '/v3/accounts', key, { name: 'Old', email: 'old@example.com', currency: 'USD' }, { 'idempotency-key': 'aging' })).body.data.id,
    ).toBe(first.body.data.id);
    await age(24.1);
    const fresh = await t.send('POST', '/v3/accounts', key, { name: 'Old', email: 'old@example.com', currency: 'USD' }, { 'idempotency-key': 'aging' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.data.id).not.toBe(first.body.data.id);
  });

  it.each([['x'.repeat(256)], ['has space'], ['']])('rejects a malformed key %j with 422', async (bad) => {
    const response = await t.send('POST', '/v3/accounts', key, { name: 'K', email: 'k@example.com', currency: 'USD' }, { 'idempotency-key': bad });
    expect(response.status).toBe(422);
  });

  it('does not store a card number in the key table', async () => {
    await t.send('POST', '/v3/payments', key, body(), { 'idempotency-key': 'pan-check' });
    const rows = await t.database.db.kysely.selectFrom('idempotency_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('4242424242424242');
  });
});

/** Dates a stored key 25 hours back, past its 24-hour retention. */
function makeOlderThanRetention(kysely: Kysely<Database>, key: string) {
  return kysely
    .updateTable('idempotency_keys')
    .set({ created_at: new Date(Date.now() - 25 * 3600_000).toISOString() })
    .where('key', '=', key)
    .execute();
}

describe('purging expired idempotency keys', () => {
  it('takes a key past its retention, not purged yet, as a new key: the request runs again, with another body', async () => {
    const t = await createTestApp();
    try {
      const { key } = await t.tenant('stale');
      const first = await t.send('POST', '/v3/accounts', key, { name: 'First', email: 'f@example.com', currency: 'USD' }, { 'idempotency-key': 'stale' });
      expect(first.status).toBe(201);
      const kysely = t.database.db.kysely;
      await makeOlderThanRetention(kysely, 'stale');
      const again = await t.send('POST', '/v3/accounts', key, { name: 'Second', email: 's@example.com', currency: 'EUR' }, { 'idempotency-key': 'stale' });
      expect(again.status).toBe(201);
      expect(again.body.data.id).not.toBe(first.body.data.id);
      expect(again.body.data.name).toBe('Second');
      const stored = await kysely.selectFrom('idempotency_keys').selectAll().where('key', '=', 'stale').execute();
      expect(stored).toHaveLength(1);
      expect(Date.parse(stored[0].created_at)).toBeGreaterThan(Date.now() - 3600_000);
    } finally {
      await t.close();
    }
  });

  it('removes keys older than 24 hours and keeps younger ones', async () => {
    const { purgeExpiredKeys } = await import('../../src/idempotency/runIdempotent.ts');
    const t = await createTestApp();
    try {
      const { key } = await t.tenant('purge');
      for (const k of ['young', 'old']) {
        await t.send('POST', '/v3/accounts', key, { name: k, email: `${k}@example.com`, currency: 'USD' }, { 'idempotency-key': k });
      }
      const kysely = t.database.db.kysely;
      await makeOlderThanRetention(kysely, 'old');
      await purgeExpiredKeys(kysely);
      expect((await kysely.selectFrom('idempotency_keys').select('key').execute()).map((r) => r.key)).toEqual(['young']);
    } finally {
      await t.close();
    }
  });
});
