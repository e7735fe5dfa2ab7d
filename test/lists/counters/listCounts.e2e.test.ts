import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../support/testApp.ts';
import { card, CARDS } from '../../support/cards.ts';
import { rebuildBuckets } from '../../../src/lists/counters/listBuckets.ts';
import { inWriteTransaction } from '../../../src/db/writeTransaction.ts';
import { payableAccount } from '../../../src/payments/paymentWrites.ts';
import { foldAll } from '../../support/foldAll.ts';

type Op =
  | { kind: 'account'; status: 'active' | 'suspended' }
  | { kind: 'payment'; account: number; cardNumber: string; capture: boolean; amount: number }
  | { kind: 'capture' | 'cancel' | 'refund'; payment: number; amount?: number }
  | { kind: 'accountStatus'; account: number; status: 'active' | 'suspended' | 'closed' }
  | { kind: 'deleteAccount'; account: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('account' as const), status: fc.constantFrom('active' as const, 'suspended' as const) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('payment' as const),
      account: fc.nat(),
      cardNumber: fc.constantFrom(CARDS.visa, CARDS.mastercard, CARDS.declined, CARDS.insufficientFunds),
      capture: fc.boolean(),
      // Amounts on the amount classes' edges (round values, one either side) as well as anywhere.
      amount: fc.oneof(
        fc.integer({ min: 50, max: 2_000_000 }),
        fc.constantFrom(1, 9, 10, 11, 99, 100, 101, 999, 1000, 1001, 4999, 5000, 5001, 20_000, 99_999_999_999),
      ),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('capture' as const, 'cancel' as const, 'refund' as const),
      payment: fc.nat(),
      amount: fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('accountStatus' as const),
      account: fc.nat(),
      status: fc.constantFrom('active' as const, 'suspended' as const, 'closed' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteAccount' as const), account: fc.nat() }) },
);

describe('maintained list counts', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Every maintained count next to count(*) over the rows it stands for. */
  async function mismatches(): Promise<unknown[]> {
    await foldAll(t.database.db);
    const { rows } = await sql<{ tenant_id: string; list: string; account_id: string; status: string; n: number; actual: number }>`
      select c.tenant_id, c.list, c.account_id, c.status, c.currency, c.card_brand, c.n,
        case when c.list = 'payments' then
          (select count(*) from payments p where p.tenant_id = c.tenant_id
             and (c.account_id = '' or p.account_id = c.account_id) and (c.status = '' or p.status = c.status)
             and (c.currency = '' or p.currency = c.currency) and (c.card_brand = '' or p.card_brand = c.card_brand))
        when c.list = 'events' then
          (select count(*) from events e where e.tenant_id = c.tenant_id and (c.status = '' or e.type = c.status))
        else
          (select count(*) from accounts a where a.tenant_id = c.tenant_id and (c.status = '' or a.status = c.status)
             and (c.currency = '' or a.currency = c.currency))
        end as actual
      from (select tenant_id, list, account_id, status, currency, card_brand, sum(n) as n from list_counts
        group by tenant_id, list, account_id, status, currency, card_brand) c`.execute(t.database.db.kysely);
    const missing = await sql<{ n: number }>`
      select count(*) as n from payments p where not exists (
        select 1 from list_counts c where c.tenant_id = p.tenant_id and c.list = 'payments' and c.account_id = p.account_id and c.status = p.status
          and c.currency = p.currency and c.card_brand = p.card_brand)`.execute(t.database.db.kysely);
    const wrong = rows.filter((r) => Number(r.n) !== Number(r.actual));
    return Number(missing.rows[0].n) > 0 ? [...wrong, { missing: missing.rows[0].n }] : wrong;
  }

  /** Every non-empty bucket count next to what rebuilding them from the rows gives (the rebuild is rolled back). */
  async function bucketMismatches(): Promise<unknown[]> {
    const read = (db: typeof t.database.db.kysely) =>
      db
        .selectFrom('list_buckets')
        .select(['tenant_id', 'sort_key', 'level', 'account_id', 'status', 'currency', 'card_brand', 'bucket', 'n'])
        .where('n', '!=', 0)
        .execute();
    const kept = await read(t.database.db.kysely);
    let rebuilt: typeof kept = [];
    await t.database.db.kysely
      .transaction()
      .execute(async (trx) => {
        await rebuildBuckets(trx, t.database.db.dialect);
        rebuilt = await read(trx);
        throw new Error('roll back');
      })
      .catch(() => {});
    const key = (r: (typeof kept)[number]) => `${r.tenant_id} ${r.sort_key} ${r.level} ${r.account_id} ${r.status} ${r.currency} ${r.card_brand} ${r.bucket}`;
    // A bucket's count is the sum of its shards (writes spread over them on PostgreSQL).
    const sums = (rows: typeof kept) => rows.reduce((m, r) => m.set(key(r), (m.get(key(r)) ?? 0) + Number(r.n)), new Map<string, number>());
    const want = sums(rebuilt);
    const have = new Map([...sums(kept)].filter(([, n]) => n !== 0));
    return [...new Set([...want.keys(), ...have.keys()])]
      .filter((k) => want.get(k) !== have.get(k))
      .map((k) => ({ bucket: k, kept: have.get(k), rebuilt: want.get(k) }));
  }

  it('stay equal to count(*), and bucket counts to a rebuild, after 16 creates at once on one account and 16 spread over eight', async () => {
    const { key } = await t.tenant('counts-concurrent');
    const accounts: string[] = [];
    for (let i = 0; i < 8; i++) {
      accounts.push((await t.send('POST', '/v3/accounts', key, { name: `C ${i}`, email: 'c@example.com', currency: 'USD' })).body.data.id);
    }
    const cards = [CARDS.visa, CARDS.mastercard, CARDS.declined];
    const create = (account: string, i: number) =>
      t.send('POST', '/v3/payments', key, { account_id: account, amount: 100 + i, currency: 'USD', capture: i % 2 === 0, card: card(cards[i % cards.length]) });
    for (const pick of [() => accounts[0], (i: number) => accounts[i % accounts.length]]) {
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => create(pick(i), i)));
      expect(answers.map((r) => r.status)).toEqual(Array(16).fill(201));
      expect(await mismatches()).toEqual([]);
      expect(await bucketMismatches()).toEqual([]);
    }
  }, 60_000);

  it('let no payment in after a close: payments racing a close are taken before it or refused', async () => {
    const { id: tenantId, key } = await t.tenant('counts-close-race');
    const account = (await t.send('POST', '/v3/accounts', key, { name: 'R', email: 'r@example.com', currency: 'USD' })).body.data.id;
    const create = (i: number) => t.send('POST', '/v3/payments', key, { account_id: account, amount: 100 + i, currency: 'USD', card: card(CARDS.visa) });
    const racing = Array.from({ length: 16 }, (_, i) => create(i));
    const close = t.send('PATCH', `/v3/accounts/${account}`, key, { status: 'closed' });
    const answers = await Promise.all(racing);
    expect((await close).status).toBe(200);
    expect(answers.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    // Every payment taken committed before the close did: the closed account's event comes after them all.
    const events = await t.database.db.kysely.selectFrom('events').select(['type', 'resource_id']).where('tenant_id', '=', tenantId).orderBy('id').execute();
    const closedAt = events.findIndex((e) => e.type === 'account.closed');
    expect(events.slice(closedAt + 1).filter((e) => e.type.startsWith('payment.'))).toEqual([]);
    expect((await create(99)).status).toBe(409);
    expect(await mismatches()).toEqual([]);
  }, 60_000);

  it('hold a close back while a payment on the account is in flight (PostgreSQL: the payment shares the account row)', async (ctx) => {
    if (t.database.db.dialect !== 'postgres') return ctx.skip(); // SQLite writes one transaction at a time
    const { id: tenantId, key } = await t.tenant('counts-close-waits');
    const account = (await t.send('POST', '/v3/accounts', key, { name: 'W', email: 'w@example.com', currency: 'USD' })).body.data.id;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let closed = false;
    // A payment's transaction, stopped right after it checked the account (as insertPayment does first).
    const payment = inWriteTransaction(t.database.db, async (write) => {
      expect((await payableAccount(write, tenantId, account)).status).toBe('active');
      await released;
      expect(closed).toBe(false);
    });
    await new Promise((r) => setTimeout(r, 100));
    const close = t.send('PATCH', `/v3/accounts/${account}`, key, { status: 'closed' }).then((r) => {
      closed = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    release();
    await payment;
    expect((await close).status).toBe(200);
  }, 30_000);

  it('stay equal to count(*), and bucket counts to a rebuild from the rows, under random interleaved writes from two tenants', async () => {
    const tenants = [await t.tenant('counts-a'), await t.tenant('counts-b')];
    const state = tenants.map(() => ({ accounts: [] as string[], payments: [] as string[] }));
    const run = async (tenant: number, op: Op) => {
      const { key } = tenants[tenant];
      const s = state[tenant];
      switch (op.kind) {
        case 'account': {
          const r = await t.send('POST', '/v3/accounts', key, { name: 'A', email: 'a@example.com', currency: 'USD', status: op.status });
          if (r.status === 201) s.accounts.push(r.body.data.id);
          return;
        }
        case 'payment': {
          if (!s.accounts.length) return;
          const body = {
            account_id: s.accounts[op.account % s.accounts.length],
            amount: op.amount,
            currency: 'USD',
            capture: op.capture,
            card: card(op.cardNumber),
          };
          const r = await t.send('POST', '/v3/payments', key, body);
          if (r.status === 201) s.payments.push(r.body.data.id);
          return;
        }
        case 'capture':
        case 'cancel':
        case 'refund': {
          if (!s.payments.length) return;
          const id = s.payments[op.payment % s.payments.length];
          await t.send(
            'POST',
            `/v3/payments/${id}/${op.kind === 'refund' ? 'refunds' : op.kind}`,
            key,
            op.amount && op.kind !== 'cancel' ? { amount: op.amount } : undefined,
          );
          return;
        }
        case 'accountStatus':
          if (s.accounts.length) await t.send('PATCH', `/v3/accounts/${s.accounts[op.account % s.accounts.length]}`, key, { status: op.status });
          return;
        case 'deleteAccount': {
          if (!s.accounts.length) return;
          const id = s.accounts[op.account % s.accounts.length];
          if ((await t.send('DELETE', `/v3/accounts/${id}`, key)).status === 204) s.accounts.splice(s.accounts.indexOf(id), 1);
          return;
        }
      }
    };

    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), opArb), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
        async (batches) => {
          for (const batch of batches) await Promise.all(batch.map(([tenant, op]) => run(tenant, op)));
          expect(await mismatches()).toEqual([]);
          expect(await bucketMismatches()).toEqual([]);
        },
      ),
      { numRuns: 25 },
    );
    expect(state[0].payments.length + state[1].payments.length).toBeGreaterThan(20);
    // Every payment is in 16 counted slices: the check of each against count(*) takes a while.
  }, 120_000);
});
