import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forRequest, recordSentStatements } from '../support/sentStatements.ts';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { card } from '../support/cards.ts';
import { TEST_DIALECT } from '../support/testDatabase.ts';

describe('the statements of a payment create', () => {
  let t: TestContext;
  let key: string;
  let accountId: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.tenant('shop')).key;
    accountId = (await t.send('POST', '/v3/accounts', key, { name: 'Shop', email: 'shop@example.com', currency: 'EUR' })).body.data.id;
  });
  afterAll(() => t.close());

  const pay = (idempotencyKey: string, extra: Record<string, unknown> = {}) =>
    t.send(
      'POST',
      '/v3/payments',
      key,
      { account_id: accountId, amount: 2500, currency: 'EUR', card: card(), ...extra },
      { 'idempotency-key': idempotencyKey },
    );

  it.runIf(TEST_DIALECT === 'postgres')(
    "sends the key's lock with its claim, and the account's check with the payment's insert, one statement each on PostgreSQL",
    async () => {
      await pay('warm-up'); // the API key's first use is recorded in the background: not counted below
      await new Promise((resolve) => setTimeout(resolve, 200));
      const recorder = recordSentStatements();
      try {
        const created = await forRequest('create', () => pay('k-1'));
        expect(created.status).toBe(201);
        const texts = recorder.statements.map((s) => s.text).filter((text) => !text.startsWith('update "api_keys"'));
        const transaction = texts.slice(texts.indexOf('begin'));
        expect(transaction.filter((text) => text.includes('pg_try_advisory_xact_lock'))).toHaveLength(1);
        expect(transaction.find((text) => text.includes('pg_try_advisory_xact_lock'))).toContain('insert into "idempotency_keys"');
        expect(transaction.filter((text) => text.includes('from "accounts"'))).toHaveLength(1);
        expect(transaction.find((text) => text.includes('from "accounts"'))).toMatch(/^insert into "payments" .* for share$/s);
        // begin, the claim, the savepoint, the payment, its events, the counted rows, the stored answer, commit.
        expect(transaction).toHaveLength(8);
      } finally {
        recorder.stop();
      }
    },
  );

  it('answers as before when the account is not there or closed: the 422 kept for its key, the 409 not', async () => {
    const unknown = await pay('k-unknown', { account_id: 'acc_doesnotexist0000000000' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.codes.account_id).toEqual(['unknown_account']);
    const replay = await pay('k-unknown', { account_id: 'acc_doesnotexist0000000000' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(unknown.body);

    const closed = (await t.send('POST', '/v3/accounts', key, { name: 'Gone', email: 'gone@example.com', currency: 'EUR' })).body.data.id;
    expect((await t.send('PATCH', `/v3/accounts/${closed}`, key, { status: 'closed' })).status).toBe(200);
    const refused = await pay('k-closed', { account_id: closed });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(`Account ${closed} is closed and cannot take payments.`);
    const count = await t.database.db.kysely
      .selectFrom('payments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', closed)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });
});
