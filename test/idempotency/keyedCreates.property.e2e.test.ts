import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/testApp.ts';
import { card, CARDS } from '../support/cards.ts';

/**
 * Payment creates under Idempotency-Keys, checked against a model: a key's first definite answer
 * is every later answer for the same request; another request under it is a 422; a payment exists
 * for exactly the keys answered 201; totals and a key's payment read back as the model says.
 * On PostgreSQL a create under a new key takes the two-statement way (decision 0094) and every
 * other case the general one, so any disagreement between the two shows here.
 */
type Step =
  | { kind: 'create'; key: number; account: number; amount: number; declined: boolean; together: number }
  | { kind: 'close'; account: number }
  | { kind: 'read' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      key: fc.nat(5),
      account: fc.nat(3),
      amount: fc.constantFrom(100, 250),
      declined: fc.boolean(),
      together: fc.constantFrom(1, 1, 2, 3),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), account: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const) }) },
);

describe('payment creates under Idempotency-Keys, against a model', () => {
  let t: TestContext;
  let run = 0;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answer, replay and count as the model says, whatever the order of creates, duplicates at once, closes and reads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const { key } = await t.tenant(`keyed-${++run}`);
        // Account 0 is never an account of the tenant's: its refusal (422) is kept for its key.
        const accounts = ['acc_00000000000000000000000000'];
        for (let i = 1; i <= 3; i++) {
          accounts.push((await t.send('POST', '/v3/accounts', key, { name: `A${i}`, email: `a${i}@example.com`, currency: 'EUR' })).body.data.id);
        }
        const closed = new Set<string>();
        /** Per key: the request it was first used for, and its kept answer (201 or 422) once it has one. */
        const model = new Map<string, { request: string; answer?: { status: number; body: unknown } }>();
        const created = new Set<string>();

        for (const s of steps) {
          if (s.kind === 'close') {
            const id = accounts[s.account];
            // A closed account stays closed (409).
            expect((await t.send('PATCH', `/v3/accounts/${id}`, key, { status: 'closed' })).status).toBe(closed.has(id) ? 409 : 200);
            closed.add(id);
            continue;
          }
          if (s.kind === 'read') {
            const list = await t.get('/v3/payments?per_page=100', key);
            expect(list.body.meta.total).toBe(created.size);
            expect(new Set(list.body.data.map((p: { id: string }) => p.id))).toEqual(created);
            continue;
          }
          const idempotencyKey = `k-${s.key}`;
          const accountId = accounts[s.account];
          const body = { account_id: accountId, amount: s.amount, currency: 'EUR', card: card(s.declined ? CARDS.declined : CARDS.visa) };
          const request = JSON.stringify(body);
          const answers = await Promise.all(
            Array.from({ length: s.together }, () => t.send('POST', '/v3/payments', key, body, { 'idempotency-key': idempotencyKey })),
          );
          const known = model.get(idempotencyKey);
          // A duplicate sent at the same time may be told the key is in flight (409, not kept): each
          // request holds the key's lock while it runs, a replay too.
          const definite = answers.filter((a) => !(a.status === 409 && String(a.body.type).endsWith('idempotency-in-flight')));
          if (s.together === 1) expect(definite).toHaveLength(1);
          if (known && known.request !== request) {
            for (const answer of definite) expect([answer.status, Object.keys(answer.body.errors ?? {})]).toEqual([422, ['Idempotency-Key']]);
            continue;
          }
          if (known?.answer) {
            for (const answer of definite) {
              expect({ status: answer.status, body: answer.body }).toEqual(known.answer);
              expect(answer.headers['idempotent-replayed']).toBe('true');
            }
            continue;
          }
          // A new key: every answer not in flight is the one answer, the write done once.
          if (definite.length === 0) continue;
          const [first] = definite;
          for (const answer of definite) expect({ status: answer.status, body: answer.body }).toEqual({ status: first.status, body: first.body });
          if (s.account === 0) {
            expect(first.status).toBe(422);
            expect(first.body.codes.account_id).toEqual(['unknown_account']);
          } else if (closed.has(accountId)) {
            expect(first.status).toBe(409);
            continue; // not kept: the key stays free
          } else {
            expect(first.status).toBe(201);
            expect(first.body.data).toMatchObject({ account_id: accountId, amount: s.amount, status: s.declined ? 'failed' : 'succeeded' });
            expect(first.headers.location).toBe(`/v3/payments/${first.body.data.id}`);
            created.add(first.body.data.id);
          }
          model.set(idempotencyKey, { request, answer: { status: first.status, body: first.body } });
          // Whatever happened, a payment read back is the answer's.
          const kept = model.get(idempotencyKey)?.answer;
          if (kept?.status === 201) {
            const id = (kept.body as { data: { id: string } }).data.id;
            expect((await t.get(`/v3/payments/${id}`, key)).body).toEqual(kept.body);
          }
        }
        const list = await t.get('/v3/payments?per_page=100', key);
        expect(list.body.meta.total).toBe(created.size);
      }),
      { numRuns: Number(process.env.KEYED_CREATE_RUNS ?? 25) },
    );
  });
});
