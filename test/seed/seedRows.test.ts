import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { monotonicFactory } from 'ulid';
import { describe, expect, it } from 'vitest';
import { toPaymentResource } from '../../src/payments/paymentResource.ts';
import { SeedRandom } from '../../src/seed/seedRandom.ts';
import { isoTime, paymentResourceJson, seededIds } from '../../src/seed/seedRows.ts';
import { BLOCK_ROWS, paymentPool, seedAccounts, seedPayments, type RunBasis } from '../../src/seed/seedSequence.ts';

const basis: RunBasis = {
  tenant: 't',
  tenantId: 'ten_1',
  seed: 's',
  accounts: 30,
  payments: 3 * BLOCK_ROWS + 17,
  untilMs: Date.parse('2026-11-01T00:00:00Z'),
  accountsBefore: 2,
  paymentsBefore: 5,
  fingerprintSecret: 'secret',
};

describe('the seed’s rows', () => {
  it('ids are what ulid’s monotonicFactory makes from the same random source, increments within a millisecond included', () => {
    const ours = seededIds(new SeedRandom('ids'));
    const random = new SeedRandom('ids');
    const theirs = monotonicFactory(() => random.float());
    const times = [1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001, 1_699_999_999_999, 1_800_000_000_000];
    for (let i = 0; i < 2000; i++) times.push(1_750_000_000_000 + Math.floor(i / 3) * 7);
    for (const t of times) expect(ours('pay', t)).toBe(`pay_${theirs(t)}`);
  });

  it('timestamps are toISOString’s', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 5000 },
    );
    for (const ms of [0, 1, -1, 86_399_999, 951_782_400_000, 4_107_542_399_999, 1.5, 253_402_300_800_000]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('a payment’s stored representation is JSON.stringify(toPaymentResource(row)), for the seed’s rows and for awkward text', () => {
    const pool = paymentPool(
      basis,
      [{ account_id: 'acc_old', currency: 'EUR' }],
      [...seedAccounts(basis, 0, basis.accounts)].map((m) => m.account),
    );
    for (const row of seedPayments(basis, pool, 0, 2000)) expect(row.resource).toBe(JSON.stringify(toPaymentResource(row)));
    const [sample] = seedPayments(basis, pool, 0, 1);
    for (const text of ['say "hi"', 'back\\slash', 'line\nbreak', 'tab\there', '’ curly', '\u0001', '\ud800 lone', 'emoji 😀', '']) {
      const row = { ...sample, description: text, reference: text, failure_message: text, metadata: JSON.stringify({ note: text }) };
      expect(paymentResourceJson(row)).toBe(JSON.stringify(toPaymentResource(row)));
    }
  });

  it('row i is the same however the run is cut into batches', () => {
    const own = [...seedAccounts(basis, 0, basis.accounts)];
    const cut = [...seedAccounts(basis, 0, 7), ...seedAccounts(basis, 7, 8), ...seedAccounts(basis, 8, basis.accounts)];
    expect(cut).toEqual(own);
    const pool = paymentPool(
      basis,
      [],
      own.map((m) => m.account),
    );
    const whole = [...seedPayments(basis, pool, 0, basis.payments)];
    const pieces = [0, 1, 999, 1000, 1001, 2500, 3000, basis.payments];
    const again = pieces.slice(1).flatMap((to, i) => [...seedPayments(basis, pool, pieces[i], to)]);
    expect(again.map((p) => p.id)).toEqual(whole.map((p) => p.id));
    expect(again).toEqual(whole);
    expect(new Set(whole.map((p) => p.id)).size).toBe(basis.payments);
    // Ids follow creation time, as the API's own do.
    expect(whole.map((p) => p.id)).toEqual(whole.map((p) => p.id).sort());
  });

  it('about one payment in a hundred has tier=gold (some beside a channel), and no other column changed for it', () => {
    const pool = paymentPool(
      basis,
      [],
      [...seedAccounts(basis, 0, basis.accounts)].map((m) => m.account),
    );
    const rows = [...seedPayments({ ...basis, payments: 20_000 }, pool, 0, 20_000)];
    const metadata = rows.map((p) => JSON.parse(p.metadata) as Record<string, string>);
    const gold = metadata.filter((m) => m.tier === 'gold');
    expect(gold.length).toBeGreaterThan(140);
    expect(gold.length).toBeLessThan(260);
    expect(gold.filter((m) => m.channel !== undefined).length).toBeGreaterThan(10);
    expect(metadata.every((m) => Object.keys(m).every((k) => k === 'channel' || k === 'tier'))).toBe(true);
    // The rows without the new key are those the seed made before it had one (digest taken then).
    const before = rows.map((p, i) => {
      const { tier: _, ...rest } = metadata[i];
      return { ...p, metadata: rest, resource: undefined };
    });
    expect(createHash('sha256').update(JSON.stringify(before)).digest('hex')).toBe('0f85b0554835febd76dbfeb2755f9c81411b7599ba29d55b834568035eba3bc1');
  });

  it('another seed or starting state gives other rows', () => {
    const own = [...seedAccounts(basis, 0, 3)].map((m) => m.account);
    const ids = (b: RunBasis) => [...seedPayments(b, paymentPool(b, [], own), 0, 10)].map((p) => p.id);
    expect(ids({ ...basis, seed: 'other' })).not.toEqual(ids(basis));
    expect(ids({ ...basis, paymentsBefore: 6 })).not.toEqual(ids(basis));
  });
});
