import { describe, expect, it } from 'vitest';
import type { ListQuery } from '../../../src/lists/request/parseListQuery.ts';
import { hasLiteral, picksIndexByValues, withValuesLiteral } from '../../../src/lists/plan/valuePlans.ts';

const byAmount: ListQuery['sort'] = [{ column: 'amount', direction: 'asc' }];
const visaFailed: ListQuery = {
  sort: byAmount,
  conditions: [
    { column: 'card_brand', match: 'in', values: ['visa'] },
    { column: 'status', match: 'in', values: ['failed', 'canceled'] },
    { column: 'amount', match: 'range', op: 'gte', value: 1000 },
    { column: 'reference', match: 'equals', value: "o'neil" },
  ],
};

describe('values written as literals (PostgreSQL: valuePlans.ts)', () => {
  it('asks for it when two or more of status, currency, card_brand narrow the list, not for one or for other columns', () => {
    expect(picksIndexByValues(visaFailed)).toBe(true);
    expect(picksIndexByValues({ ...visaFailed, conditions: visaFailed.conditions.slice(1) })).toBe(false);
    expect(
      picksIndexByValues({
        sort: byAmount,
        conditions: [
          { column: 'status', match: 'in', values: ['failed'] },
          { column: 'account_id', match: 'in', values: ['acc_1'] },
        ],
      }),
    ).toBe(false);
  });

  it('writes those columns’ values alone as literals, every value kept, the rest of the query as it was', () => {
    const written = withValuesLiteral(visaFailed);
    expect(written.conditions.map((c) => ('written' in c ? c.written : undefined))).toEqual(['literal', 'literal', undefined, undefined]);
    expect(written.conditions.map((c) => ('values' in c ? c.values : c.value))).toEqual([['visa'], ['failed', 'canceled'], 1000, "o'neil"]);
    expect(written.sort).toBe(visaFailed.sort);
    expect(hasLiteral(written)).toBe(true);
    expect(hasLiteral(visaFailed)).toBe(false);
  });
});
