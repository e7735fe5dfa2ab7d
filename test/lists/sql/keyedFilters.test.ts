import { describe, expect, it } from 'vitest';
import type { ListQuery } from '../../../src/lists/request/parseListQuery.ts';
import { keyedPlanOf, keyedConditionOf, withKeyedWriting } from '../../../src/lists/plan/keyedPlans.ts';

const last4 = (...values: string[]) => ({ column: 'card_last4', match: 'in' as const, values });
const status = (...values: string[]) => ({ column: 'status', match: 'in' as const, values });
const query = (conditions: ListQuery['conditions'], sort = 'created_at', direction: 'asc' | 'desc' = 'asc'): ListQuery => ({
  conditions,
  sort: [{ column: sort, direction }],
});
const scope = { tenantId: 'ten_1' };

describe('filters on a column of many values, planned by their counts (keyedFilters.ts)', () => {
  it('finds a keyed filter only where the rest of the list is a counted slice of the tenant’s whole list', () => {
    expect(keyedConditionOf('payments', scope, query([status('succeeded'), last4('4242')]))?.column).toBe('card_last4');
    expect(keyedConditionOf('payments', scope, query([{ column: 'reference', match: 'equals', value: 'r' }]))?.column).toBe('reference');
    expect(keyedConditionOf('accounts', scope, query([{ column: 'email_folded', match: 'equals', value: 'a@b.co' }]))?.column).toBe('email_folded');
    expect(keyedConditionOf('payments', scope, query([status('succeeded')]))).toBeUndefined();
    expect(keyedConditionOf('payments', { ...scope, accountId: 'acc_1' }, query([last4('4242')]))).toBeUndefined();
    const ranged = query([last4('4242'), { column: 'amount', match: 'range', op: 'gte', value: 10 }]);
    expect(keyedConditionOf('payments', scope, ranged)?.column).toBe('card_last4');
    const contains = query([last4('4242'), { column: 'reference', match: 'equals', value: 'r' }, { column: 'description', match: 'contains', value: 'x' }]);
    expect(keyedConditionOf('payments', scope, contains)).toBeUndefined();
  });

  it('leaves the list as it is read today when the other filters hold fewer rows than the keyed one', () => {
    const q = query([status('disputed'), last4('4242')]);
    expect(keyedPlanOf({ keyed: 51, size: 50, whole: 1_000_000 }, q, last4('4242'), 0, 10)).toBeUndefined();
  });

  it('reads one value’s rows in its own index’s order when the list is sorted by created_at alone', () => {
    expect(keyedPlanOf({ keyed: 2000, size: 1_000_000, whole: 1_000_000 }, query([last4('1097')]), last4('1097'), 500, 10)).toEqual({ walk: undefined });
    expect(keyedPlanOf({ keyed: 2000, size: 1_000_000, whole: 1_000_000 }, query([last4('1097')], 'created_at', 'desc'), last4('1097'), 0, 10)).toEqual({
      walk: undefined,
    });
  });

  it('walks the sort’s index to a page it reaches in fewer rows than the keyed filter holds, else sorts the keyed rows', () => {
    const rare = query([last4('1097')], 'amount', 'desc');
    expect(keyedPlanOf({ keyed: 2232, size: 1_000_000, whole: 1_000_000 }, rare, last4('1097'), 0, 10)).toEqual({ walk: false });
    const common = query([last4('4242')], 'amount');
    expect(keyedPlanOf({ keyed: 400_000, size: 1_000_000, whole: 1_000_000 }, common, last4('4242'), 0, 10)).toEqual({ walk: true });
    // Its middle page too: 500k entries walked cost less than 400k rows sorted whole.
    expect(keyedPlanOf({ keyed: 400_000, size: 1_000_000, whole: 1_000_000 }, common, last4('4242'), 200_000, 10)).toEqual({ walk: true });
    // Under a status holding a tenth of the list, the matches are taken to be a tenth of the keyed rows.
    const succeeded = query([status('succeeded'), last4('1097')], 'amount');
    expect(keyedPlanOf({ keyed: 2000, size: 100_000, whole: 1_000_000 }, succeeded, last4('1097'), 0, 10)).toEqual({ walk: false });
    // A first page's OFFSET counts from the start; a deeper page's skip from the nearer end.
    const fifth = query([last4('4242')], 'amount');
    expect(keyedPlanOf({ keyed: 5000, size: 100_000, whole: 100_000 }, fifth, last4('4242'), 4980, 10, true)).toEqual({ walk: true });
    expect(keyedPlanOf({ keyed: 5000, size: 100_000, whole: 100_000 }, fifth, last4('4242'), 4980, 10, false)).toEqual({ walk: false });
    // Several values are in no index's created_at order: chosen like any other order.
    const several = query([last4('1097', '3790')]);
    expect(keyedPlanOf({ keyed: 100_000, size: 1_000_000, whole: 1_000_000 }, several, last4('1097', '3790'), 0, 10)).toEqual({ walk: true });
    expect(keyedPlanOf({ keyed: 4000, size: 1_000_000, whole: 1_000_000 }, several, last4('1097', '3790'), 0, 10)).toEqual({ walk: false });
  });

  it('writes the other filters unindexed for the keyed index, or the keyed filter unindexed for a walk, keeping every value', () => {
    const q = query([status('succeeded', 'failed'), last4('4242')], 'amount');
    expect(withKeyedWriting(q, 'card_last4', false).conditions).toEqual([{ ...status('succeeded', 'failed'), written: 'unindexed' }, last4('4242')]);
    expect(withKeyedWriting(q, 'card_last4', undefined).conditions).toEqual([{ ...status('succeeded', 'failed'), written: 'unindexed' }, last4('4242')]);
    expect(withKeyedWriting(q, 'card_last4', true).conditions).toEqual([status('succeeded', 'failed'), { ...last4('4242'), written: 'unindexed' }]);
    expect(withKeyedWriting(q, 'card_last4', true).sort).toEqual(q.sort);
    // A created_at range bounds the keyed index (its next column); an amount range is tested in it.
    const created = { column: 'created_at', match: 'range' as const, op: 'gte' as const, value: '2026-01-01T00:00:00.000Z' };
    const amount = { column: 'amount', match: 'range' as const, op: 'lt' as const, value: 100 };
    expect(withKeyedWriting(query([last4('4242'), created, amount]), 'card_last4', false).conditions).toEqual([
      last4('4242'),
      created,
      { ...amount, written: 'unindexed' },
    ]);
  });
});
