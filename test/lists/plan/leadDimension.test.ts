import { describe, expect, it } from 'vitest';
import { withLeadDimension } from '../../../src/lists/plan/leadDimension.ts';
import type { ListQuery } from '../../../src/lists/request/parseListQuery.ts';

const dim = (column: string, ...values: string[]) => ({ column, match: 'in' as const, values });
const since = { column: 'created_at', match: 'range' as const, op: 'gte' as const, value: '2026-01-01T00:00:00.000Z' };
const query = (...conditions: ListQuery['conditions']): ListQuery => ({ conditions, sort: [{ column: 'created_at', direction: 'asc' }] });
const scope = { tenantId: 'ten_1' };

describe('several dimensions read in the leading one’s index, which carries the others (leadDimension.ts)', () => {
  it('leaves one status indexed and writes the currencies and card brands its index carries unindexed, keeping every value', () => {
    const q = query(dim('currency', 'EUR', 'USD'), dim('status', 'succeeded'), dim('card_brand', 'visa'), since);
    expect(withLeadDimension('payments', scope, q)).toEqual({
      ...q,
      conditions: [
        { ...dim('currency', 'EUR', 'USD'), written: 'unindexed' },
        dim('status', 'succeeded'),
        { ...dim('card_brand', 'visa'), written: 'unindexed' },
        since,
      ],
    });
  });

  it('leads with one currency when no single status is filtered and the currency’s index carries the rest', () => {
    const q = query(dim('card_brand', 'visa', 'amex'), dim('currency', 'EUR'));
    expect(withLeadDimension('payments', scope, q).conditions).toEqual([
      { ...dim('card_brand', 'visa', 'amex'), written: 'unindexed' },
      dim('currency', 'EUR'),
    ]);
    // Several statuses: the currency's index lacks them, and no index of several values gives the list's order.
    const statuses = query(dim('status', 'succeeded', 'failed'), dim('currency', 'EUR'));
    expect(withLeadDimension('payments', scope, statuses)).toBe(statuses);
  });

  it('changes nothing for one dimension, an account’s list, a filter by account, or accounts', () => {
    for (const [table, s, q] of [
      ['payments', scope, query(dim('status', 'succeeded'), since)],
      ['payments', scope, query(dim('card_brand', 'visa'), since)],
      ['payments', scope, query(dim('status', 'succeeded', 'failed'), dim('currency', 'EUR', 'USD'), since)],
      ['payments', { ...scope, accountId: 'acc_1' }, query(dim('status', 'succeeded'), dim('currency', 'EUR'))],
      ['payments', scope, query(dim('account_id', 'acc_1'), dim('status', 'succeeded'), dim('currency', 'EUR'))],
      ['accounts', scope, query(dim('status', 'active'), dim('currency', 'EUR'))],
    ] as const) {
      expect(withLeadDimension(table, s, q)).toBe(q);
    }
  });
});
