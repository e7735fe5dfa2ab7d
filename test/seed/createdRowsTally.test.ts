import { describe, expect, it } from 'vitest';
import { CreatedRowsTally } from '../../src/seed/createdRowsTally.ts';
import { bucketRows, paymentBucketDeltas, type BucketDelta, type BucketRow } from '../../src/lists/counters/listBuckets.ts';
import { accountCountKeys, countRows, paymentCountKeys, type CountDelta } from '../../src/lists/counters/listCounts.ts';
import { paymentPool, seedAccounts, seedPayments, type RunBasis } from '../../src/seed/seedSequence.ts';

const basis: RunBasis = {
  tenant: 't',
  tenantId: 'ten_1',
  seed: 'tally',
  accounts: 40,
  payments: 20_000,
  untilMs: Date.parse('2026-11-01T00:00:00Z'),
  accountsBefore: 0,
  paymentsBefore: 0,
  fingerprintSecret: 'secret',
};

/** A bucket row as a delta of its count (to merge rows written at different times). */
function asDelta(r: BucketRow): BucketDelta {
  const { account_id, status, currency, card_brand } = r;
  return { sortKey: r.sort_key, level: r.level, account_id, status, currency, card_brand, bucket: Number(r.bucket), delta: Number(r.n) };
}

describe('a tally of created rows', () => {
  it('adds up to the count and bucket rows of each row’s own deltas, in the same (global) order', () => {
    const accounts = [...seedAccounts(basis, 0, basis.accounts)];
    const payments = [
      ...seedPayments(
        basis,
        paymentPool(
          basis,
          [],
          accounts.map((a) => a.account),
        ),
        0,
        basis.payments,
      ),
    ];
    // Amounts of every size, down to one minor unit, on the amount classes' edges (round values and
    // one either side, past 11 digits, 0 and below), and times across day boundaries.
    const edges = [
      -5, 0, 1, 9, 10, 11, 20, 99, 100, 101, 500, 999, 1000, 4999, 5000, 5001, 10_000, 987_654_321, 99_999_999_999, 100_000_000_000, 123_456_789_012,
    ];
    payments.push(...edges.map((amount, i) => ({ ...payments[i], amount })), { ...payments[2], created_at: '2026-01-01T00:00:00.000Z' });
    const tally = new CreatedRowsTally();
    for (const { row } of accounts) tally.addAccount(row);
    for (const p of payments) tally.addPayment(p);

    const counts = [
      ...accounts.flatMap(({ row }) => accountCountKeys(row).map((k) => ({ ...k, delta: 1 }))),
      ...payments.flatMap((p) => paymentCountKeys(p).map((k) => ({ ...k, delta: 1 }))),
    ];
    expect(countRows('ten_1', tally.countDeltas())).toEqual(countRows('ten_1', counts));
    const expected = bucketRows(
      'ten_1',
      payments.flatMap((p) => paymentBucketDeltas(undefined, p)),
    );
    expect([...tally.bucketRows('ten_1')]).toEqual(expected);
    expect(expected.length).toBeGreaterThan(1000);
    // 20k payments' deltas, 64 rows each since the pairs are bucketed: ~25 s on a loaded machine.
  }, 120_000);

  it('hands out and lets go of what one account’s slices hold, the rest kept: what is written out and what is left add up to the whole', () => {
    // Many accounts, a few payments each: what one account's slices hold is most of the tally.
    const many: RunBasis = { ...basis, seed: 'many', accounts: 3000, payments: 6000 };
    const accounts = [...seedAccounts(many, 0, many.accounts)];
    const pool = paymentPool(
      many,
      [],
      accounts.map((a) => a.account),
    );
    const whole = new CreatedRowsTally();
    const parted = new CreatedRowsTally();
    for (const { row } of accounts) {
      whole.addAccount(row);
      parted.addAccount(row);
    }
    const writtenCounts: CountDelta[] = [];
    const writtenBuckets: BucketRow[] = [];
    let peak = 0;
    for (const p of seedPayments(many, pool, 0, many.payments)) {
      whole.addPayment(p);
      parted.addPayment(p);
      peak = Math.max(peak, parted.accountEntries);
      if (parted.accountEntries >= 500) {
        writtenCounts.push(...parted.countDeltas('accounts'));
        writtenBuckets.push(...parted.bucketRows('ten_1', 0, 'accounts'));
        parted.clearAccounts();
        expect(parted.accountEntries).toBe(0);
        expect(parted.countDeltas('accounts')).toEqual([]);
        expect([...parted.bucketRows('ten_1', 0, 'accounts')]).toEqual([]);
      }
    }
    // Held entries stay under the bound however many accounts (each payment adds at most 3: its counts' and 2 finest buckets').
    expect(peak).toBeLessThan(503);
    expect(whole.accountEntries).toBeGreaterThan(10_000);
    writtenCounts.push(...parted.countDeltas('accounts'));
    writtenBuckets.push(...parted.bucketRows('ten_1', 0, 'accounts'));
    // The account rows alone, in the global order, and the tenant's rows, never handed out.
    expect([...whole.accountCountRows('ten_1', 3)]).toEqual(countRows('ten_1', whole.countDeltas('accounts'), 3));
    const accountsOnly = [...whole.bucketRows('ten_1', 0, 'accounts')];
    expect(accountsOnly.length).toBeGreaterThan(0);
    expect(accountsOnly.every((r) => r.account_id !== '')).toBe(true);
    expect(bucketRows('ten_1', accountsOnly.map(asDelta))).toEqual(accountsOnly);
    expect([...parted.bucketRows('ten_1', 0, 'tenant')].every((r) => r.account_id === '')).toBe(true);
    expect(countRows('ten_1', [...writtenCounts, ...parted.countDeltas('tenant')])).toEqual(countRows('ten_1', whole.countDeltas()));
    expect(bucketRows('ten_1', [...writtenBuckets, ...parted.bucketRows('ten_1', 0, 'tenant')].map(asDelta))).toEqual([...whole.bucketRows('ten_1')]);
  }, 120_000);

  it('is empty with nothing added', () => {
    const tally = new CreatedRowsTally();
    expect(tally.countDeltas()).toEqual([]);
    expect([...tally.bucketRows('ten_1')]).toEqual([]);
  });
});
