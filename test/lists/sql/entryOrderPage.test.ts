import { describe, expect, it } from 'vitest';
import type { ListQuery } from '../../../src/lists/request/parseListQuery.ts';
import { entryOrderLeads, entryOrderLead, ordersEntries, readsInEntryOrder } from '../../../src/lists/plan/entryOrderPlans.ts';

const gold = { column: 'payment_metadata', match: 'metadata' as const, key: 'tier', values: ['gold'] };
const tenant = { tenantId: 'ten_x' };
const sorted = (column: string, direction: 'asc' | 'desc') => [{ column, direction }];
const query = (conditions: ListQuery['conditions'], sort = sorted('created_at', 'asc')): ListQuery => ({ conditions, sort });

describe('which metadata searches are read in their entries’ order (entryOrderPage.ts)', () => {
  it('reads one value of one key over the whole list in created_at order, either direction', () => {
    expect(readsInEntryOrder(tenant, query([gold]))).toBe(true);
    expect(readsInEntryOrder(tenant, query([gold], sorted('created_at', 'desc')))).toBe(true);
  });

  it('reads it so with any of some statuses beside it too, each entry’s record tested (migration 0024 counts the total)', () => {
    expect(readsInEntryOrder(tenant, query([gold, { column: 'status', match: 'in', values: ['failed'] }]))).toBe(true);
    expect(readsInEntryOrder(tenant, query([{ column: 'status', match: 'in', values: ['failed', 'succeeded'] }, gold], sorted('created_at', 'desc')))).toBe(
      true,
    );
    expect(readsInEntryOrder({ ...tenant, accountId: 'acc_x' }, query([gold, { column: 'status', match: 'in', values: ['failed'] }]))).toBe(false);
  });

  it('reads several values of a key so: one run of entries per value, merged in the sort’s order', () => {
    expect(readsInEntryOrder(tenant, query([{ ...gold, values: ['gold', 'silver'] }]))).toBe(true);
    expect(
      readsInEntryOrder(
        tenant,
        query([
          { ...gold, values: ['gold', 'silver'] },
          { ...gold, key: 'channel', values: ['web', 'pos'] },
        ]),
      ),
    ).toBe(true);
  });

  it('reads a payment search sorted by amount so (migration 0032: the entries in amount order too), an account search not', () => {
    expect(readsInEntryOrder(tenant, query([gold], sorted('amount', 'desc')))).toBe(true);
    expect(
      readsInEntryOrder(
        tenant,
        query(
          [
            { ...gold, values: ['gold', 'silver'] },
            { column: 'status', match: 'in', values: ['succeeded'] },
          ],
          sorted('amount', 'asc'),
        ),
      ),
    ).toBe(true);
    expect(ordersEntries('payment_metadata', 'amount')).toBe(true);
    expect(ordersEntries('account_metadata', 'name')).toBe(false);
    expect(readsInEntryOrder(tenant, query([{ ...gold, column: 'account_metadata' }], sorted('name', 'asc')))).toBe(false);
  });

  it('reads several keys so: the entries of the one with the fewest walked, the others probed', () => {
    expect(readsInEntryOrder(tenant, query([gold, { ...gold, key: 'channel', values: ['web'] }]))).toBe(true);
    expect(readsInEntryOrder(tenant, query([{ ...gold, key: 'channel', values: ['web', 'pos'] }, gold], sorted('created_at', 'desc')))).toBe(true);
    expect(readsInEntryOrder(tenant, query([gold, { ...gold, key: 'channel', values: ['web'] }, { column: 'status', match: 'in', values: ['failed'] }]))).toBe(
      true,
    );
  });

  it('reads it so beside a payment’s currencies, card brands and amount range (migration 0030), with a created_at range too', () => {
    const eur = { column: 'currency', match: 'in' as const, values: ['EUR', 'USD'] };
    const visa = { column: 'card_brand', match: 'in' as const, values: ['visa'] };
    const from = { column: 'amount', match: 'range' as const, op: 'gte' as const, value: 1000 };
    const since = { column: 'created_at', match: 'range' as const, op: 'gte' as const, value: '2026-01-01T00:00:00.000Z' };
    expect(readsInEntryOrder(tenant, query([gold, eur]))).toBe(true);
    expect(readsInEntryOrder(tenant, query([visa, gold, from, since], sorted('created_at', 'desc')))).toBe(true);
    // Beside statuses too (migration 0032), in amount order too; not for accounts, whose entries carry nothing (their currency changes).
    expect(readsInEntryOrder(tenant, query([gold, from], sorted('amount', 'asc')))).toBe(true);
    expect(readsInEntryOrder(tenant, query([gold, eur, { column: 'status', match: 'in', values: ['failed'] }]))).toBe(true);
    expect(
      readsInEntryOrder(
        tenant,
        query([
          { ...gold, column: 'account_metadata' },
          { column: 'currency', match: 'in', values: ['EUR'] },
        ]),
      ),
    ).toBe(false);
    expect(readsInEntryOrder(tenant, query([gold, { column: 'card_last4', match: 'in', values: ['4242'] }]))).toBe(false);
  });

  it('chooses as lead the key with the fewest entries, the first on a tie', () => {
    const web = { ...gold, key: 'channel', values: ['web'] };
    const some = { ...gold, key: 'channel', values: ['web', 'pos'] };
    expect(entryOrderLeads(query([gold, web]))).toEqual([0, 1]);
    expect(entryOrderLeads(query([some, gold]))).toEqual([0, 1]);
    expect(entryOrderLead(query([gold, web]), { e0: '100', e1: 7 })).toBe(1);
    expect(entryOrderLead(query([gold, web]), { e0: 7, e1: 7 })).toBe(0);
    expect(entryOrderLead(query([some, gold]), { e0: 9, e1: 5 })).toBe(1);
  });

  it('leaves every other shape to the plans chosen by counts: a filter the entries do not carry, one account, another sort', () => {
    expect(readsInEntryOrder(tenant, query([gold, { column: 'card_last4', match: 'in', values: ['4242'] }]))).toBe(false);
    expect(
      readsInEntryOrder(
        tenant,
        query([
          { ...gold, column: 'account_metadata' },
          { column: 'status', match: 'in', values: ['active'] },
          { column: 'currency', match: 'in', values: ['EUR'] },
        ]),
      ),
    ).toBe(false);
    expect(readsInEntryOrder({ ...tenant, accountId: 'acc_x' }, query([gold]))).toBe(false);
    expect(readsInEntryOrder(tenant, query([gold], [...sorted('amount', 'asc'), ...sorted('created_at', 'desc')]))).toBe(false);
    expect(readsInEntryOrder(tenant, query([]))).toBe(false);
  });
});
