import { describe, expect, it } from 'vitest';
import { CreatedRowsTally } from '../../src/counts/createdRowsTally.ts';
import { bucketRows, paymentBucketDeltas } from '../../src/counts/listBuckets.ts';
import { accountCountKeys, countRows, paymentCountKeys } from '../../src/counts/listCounts.ts';
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

  it('is empty with nothing added', () => {
    const tally = new CreatedRowsTally();
    expect(tally.countDeltas()).toEqual([]);
    expect([...tally.bucketRows('ten_1')]).toEqual([]);
  });
});
