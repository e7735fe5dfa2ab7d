import { describe, expect, it } from 'vitest';
import { testedInEntries } from '../../../src/lists/plan/testedInEntries.ts';

describe('which conditions beside a metadata search its entries answer (entryConditions.ts)', () => {
  it('answers a created_at range in either list’s entries (migration 0023)', () => {
    const since = { column: 'created_at', match: 'range' as const, op: 'gte' as const, value: '2026-01-01T00:00:00.000Z' };
    expect(testedInEntries('payment_metadata', since)).toBe(true);
    expect(testedInEntries('account_metadata', since)).toBe(true);
  });

  it('answers a payment’s currencies, card brands and amount range, which its entries carry (migration 0030)', () => {
    expect(testedInEntries('payment_metadata', { column: 'currency', match: 'in', values: ['EUR', 'USD'] })).toBe(true);
    expect(testedInEntries('payment_metadata', { column: 'card_brand', match: 'in', values: ['visa'] })).toBe(true);
    expect(testedInEntries('payment_metadata', { column: 'amount', match: 'range', op: 'lt', value: 1000 })).toBe(true);
  });

  it('answers a payment’s statuses (migration 0032: its entries carry it, rewritten as it moves), not an account’s', () => {
    expect(testedInEntries('payment_metadata', { column: 'status', match: 'in', values: ['failed', 'succeeded'] })).toBe(true);
    expect(testedInEntries('account_metadata', { column: 'status', match: 'in', values: ['active'] })).toBe(false);
  });

  it('answers nothing an entry does not carry: a card’s last four, an account’s currency, the search itself', () => {
    expect(testedInEntries('payment_metadata', { column: 'card_last4', match: 'in', values: ['4242'] })).toBe(false);
    expect(testedInEntries('account_metadata', { column: 'currency', match: 'in', values: ['EUR'] })).toBe(false);
    expect(testedInEntries('payment_metadata', { column: 'payment_metadata', match: 'metadata', key: 'tier', values: ['gold'] })).toBe(false);
    expect(testedInEntries('payments', { column: 'currency', match: 'in', values: ['EUR'] })).toBe(false);
  });
});
