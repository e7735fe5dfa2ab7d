import { describe, expect, it } from 'vitest';
import type { ListQuery } from '../../src/listquery/parseListQuery.ts';
import { readsInEntryOrder } from '../../src/listing/entryOrderPage.ts';

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

  it('leaves every other shape to the plans chosen by counts: several values or keys, another filter, one account, another sort', () => {
    expect(readsInEntryOrder(tenant, query([{ ...gold, values: ['gold', 'silver'] }]))).toBe(false);
    expect(readsInEntryOrder(tenant, query([gold, { ...gold, key: 'channel', values: ['web'] }]))).toBe(false);
    expect(readsInEntryOrder(tenant, query([gold, { column: 'currency', match: 'in', values: ['EUR'] }]))).toBe(false);
    expect(
      readsInEntryOrder(tenant, query([gold, { column: 'status', match: 'in', values: ['failed'] }, { column: 'currency', match: 'in', values: ['EUR'] }])),
    ).toBe(false);
    expect(readsInEntryOrder({ ...tenant, accountId: 'acc_x' }, query([gold]))).toBe(false);
    expect(readsInEntryOrder(tenant, query([gold], sorted('amount', 'asc')))).toBe(false);
    expect(readsInEntryOrder(tenant, query([gold], [...sorted('amount', 'asc'), ...sorted('created_at', 'desc')]))).toBe(false);
    expect(readsInEntryOrder(tenant, query([]))).toBe(false);
  });
});
