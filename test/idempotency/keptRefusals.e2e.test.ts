import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card } from '../support/cards.ts';
import { createTestApp, type TestContext } from '../support/testApp.ts';

/**
 * Which refusals an Idempotency-Key keeps (Stripe's rule, docs/payments.md → Idempotency): an answer is
 * kept once the write has begun, that is once the request is well-formed; a refusal of the
 * request's form is not, and neither are 409, 429 and 5xx.
 */
describe('refusals under an Idempotency-Key', () => {
  let t: TestContext;
  let key: string;
  let accountId: string;
  beforeAll(async () => {
    t = await createTestApp({ limits: { rateLimitPerKey: 0 } });
    key = (await t.tenant('refusals')).key;
    accountId = (await t.send('POST', '/v3/accounts', key, { name: 'R', email: 'r@example.com', currency: 'EUR' })).body.data.id;
  });
  afterAll(() => t.close());

  const payment = (overrides: Record<string, unknown> = {}) => ({ account_id: accountId, amount: 500, currency: 'EUR', card: card(), ...overrides });
  const stored = async (idempotencyKey: string) =>
    (await t.database.db.kysely.selectFrom('idempotency_keys').select('response_status').where('key', '=', idempotencyKey).execute()).map(
      (r) => r.response_status,
    );

  /** Sends the same refused request twice under one key: the second is its replay, or a fresh answer. */
  const twice = async (method: 'POST', url: string, body: unknown, idempotencyKey: string) => {
    const first = await t.send(method, url, key, body, { 'idempotency-key': idempotencyKey });
    const again = await t.send(method, url, key, body, { 'idempotency-key': idempotencyKey });
    return { first, again };
  };

  describe('kept and replayed: what the write answered once it began', () => {
    it.each([
      ['an account that does not exist', { account_id: 'acc_00000000000000000000000000' }],
      ['an account id of no account’s shape', { account_id: 'nope' }],
    ])('422 for %s', async (_, overrides) => {
      const { first, again } = await twice('POST', '/v3/payments', payment(overrides), `unknown-account-${overrides.account_id}`);
      expect(first.status).toBe(422);
      expect(Object.keys(first.body.errors)).toEqual(['account_id']);
      expect(again.status).toBe(422);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      // The key is spent on that request: a corrected one needs a new key.
      const corrected = await t.send('POST', '/v3/payments', key, payment(), { 'idempotency-key': `unknown-account-${overrides.account_id}` });
      expect(corrected.status).toBe(422);
      expect(Object.keys(corrected.body.errors)).toEqual(['Idempotency-Key']);
    });

    it('422 for a refund larger than what is left', async () => {
      const paid = (await t.send('POST', '/v3/payments', key, payment())).body.data;
      const { first, again } = await twice('POST', `/v3/payments/${paid.id}/refunds`, { amount: 99_999 }, 'too-much');
      expect(first.status).toBe(422);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
    });

    it.each([
      ['a payment that does not exist', 'pay_00000000000000000000000000'],
      ['a payment id of no payment’s shape', 'nope'],
    ])('404 for %s', async (_, id) => {
      const { first, again } = await twice('POST', `/v3/payments/${id}/capture`, {}, `missing-${id}`);
      expect(first.status).toBe(404);
      expect(again.status).toBe(404);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await stored(`missing-${id}`)).toEqual([404]);
    });
  });

  describe('not kept: the key stays free for a corrected request', () => {
    it('422 from the body’s schema (a negative amount), even with an unknown account beside it', async () => {
      for (const [k, overrides] of [
        ['schema-1', { amount: -5 }],
        ['schema-2', { amount: -5, account_id: 'acc_00000000000000000000000000' }],
      ] as const) {
        const { first, again } = await twice('POST', '/v3/payments', payment(overrides), k);
        expect(first.status).toBe(422);
        expect(again.status).toBe(422);
        expect(again.headers['idempotent-replayed']).toBeUndefined();
        expect(await stored(k)).toEqual([]);
        expect((await t.send('POST', '/v3/payments', key, payment(), { 'idempotency-key': k })).status).toBe(201);
      }
    });

    it('400 for a body that is not JSON', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v3/payments',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'not-json' },
        payload: '{"amount":',
      });
      expect(response.statusCode).toBe(400);
      expect(await stored('not-json')).toEqual([]);
    });

    it('409 for an action the payment’s state forbids', async () => {
      const paid = (await t.send('POST', '/v3/payments', key, payment({ capture: true }))).body.data;
      const { first, again } = await twice('POST', `/v3/payments/${paid.id}/cancel`, undefined, 'forbidden');
      expect(first.status).toBe(409);
      expect(again.status).toBe(409);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      expect(await stored('forbidden')).toEqual([]);
    });

    it('429 when the key’s budget is spent', async () => {
      const limited = await createTestApp({ limits: { rateLimitPerKey: 1, rateLimitWindowMs: 60_000 } });
      try {
        const own = (await limited.tenant('limited')).key;
        await limited.send('GET', '/v3/accounts', own);
        const refused = await limited.send(
          'POST',
          '/v3/accounts',
          own,
          { name: 'L', email: 'l@example.com', currency: 'EUR' },
          { 'idempotency-key': 'limited' },
        );
        expect(refused.status).toBe(429);
        expect(await limited.database.db.kysely.selectFrom('idempotency_keys').select('key').where('key', '=', 'limited').execute()).toEqual([]);
      } finally {
        await limited.close();
      }
    });
  });
});
