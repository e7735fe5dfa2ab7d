import { describe, expect, it } from 'vitest';
import type { ListQuery } from '../../../src/lists/request/parseListQuery.ts';
import { hasLiteral } from '../../../src/lists/plan/valuePlans.ts';
import {
  hasRangeOffTheSort,
  sqliteSortCost,
  sliversAreCheaper,
  walkIsCheaper,
  walkServesOrder,
  withLowEndClosed,
  withRangesClosed,
  withRangesWritten,
  withSortUnindexed,
  withStartSideUnindexed,
} from '../../../src/lists/plan/rangePlans.ts';

const amountFrom1000ByTime: ListQuery = {
  conditions: [
    { column: 'currency', match: 'in', values: ['EUR'] },
    { column: 'amount', match: 'range', op: 'gte', value: 1000 },
    { column: 'amount', match: 'range', op: 'lt', value: 10_000 },
  ],
  sort: [{ column: 'created_at', direction: 'desc' }],
};

const monthByTime = (direction: 'asc' | 'desc'): ListQuery => ({
  conditions: [
    { column: 'created_at', match: 'range', op: 'gte', value: '2026-07-01T00:00:00.000Z' },
    { column: 'created_at', match: 'range', op: 'lt', value: '2026-08-01T00:00:00.000Z' },
  ],
  sort: [{ column: 'created_at', direction }],
});

const writings = (query: ListQuery) => query.conditions.map((c) => (c.match === 'range' ? (c.written ?? 'parameter') : c.match));

describe('how a list’s ranges are written to steer the plan (rangePlans.ts)', () => {
  it('tells a range on another column than the sort’s first from one on it', () => {
    expect(hasRangeOffTheSort(amountFrom1000ByTime)).toBe(true);
    expect(hasRangeOffTheSort(monthByTime('desc'))).toBe(false);
    expect(hasRangeOffTheSort({ ...amountFrom1000ByTime, sort: [{ column: 'amount', direction: 'asc' }] })).toBe(false);
  });

  it('writes only the ranges off the sort, and keeps the values and the rest of the query', () => {
    const literal = withRangesWritten(amountFrom1000ByTime, 'literal');
    expect(writings(literal)).toEqual(['in', 'literal', 'literal']);
    expect(literal.conditions.map((c) => ('value' in c ? c.value : c.values))).toEqual([['EUR'], 1000, 10_000]);
    expect(literal.sort).toEqual(amountFrom1000ByTime.sort);
    expect(hasLiteral(literal)).toBe(true);
    expect(hasLiteral(amountFrom1000ByTime)).toBe(false);
    expect(writings(withRangesWritten(monthByTime('asc'), 'literal'))).toEqual(['parameter', 'parameter']);
  });

  it('never writes a number into the SQL text that is not a safe integer', () => {
    const odd: ListQuery = { ...amountFrom1000ByTime, conditions: [{ column: 'amount', match: 'range', op: 'gte', value: 1e21 }] };
    expect(writings(withRangesWritten(odd, 'literal'))).toEqual(['parameter']);
    expect(writings(withRangesWritten(odd, 'unindexed'))).toEqual(['unindexed']);
    // Written without its value in the text: any value, a statement template's placeholder too.
    expect(writings(withRangesWritten(odd, 'opaque'))).toEqual(['opaque']);
  });

  it('closes a range off the sort open at one end by its type’s far end, which every row satisfies (PostgreSQL’s range-index branch)', () => {
    const bounds = (query: ListQuery) => query.conditions.flatMap((c) => (c.match === 'range' ? [`${c.column} ${c.op} ${c.value}`] : []));
    const amountFrom1000 = { ...amountFrom1000ByTime, conditions: amountFrom1000ByTime.conditions.slice(0, 2) };
    expect(bounds(withRangesClosed(amountFrom1000))).toEqual(['amount gte 1000', 'amount lte 9223372036854775807']);
    const monthOn = (op: 'gte' | 'lt'): ListQuery => ({
      conditions: [{ column: 'created_at', match: 'range', op, value: '2026-07-01T00:00:00.000Z' }],
      sort: [{ column: 'amount', direction: 'asc' }],
    });
    expect(bounds(withRangesClosed(monthOn('lt')))).toEqual(['created_at lt 2026-07-01T00:00:00.000Z', 'created_at gte -infinity']);
    expect(bounds(withRangesClosed(monthOn('gte')))).toEqual(['created_at gte 2026-07-01T00:00:00.000Z', 'created_at lte infinity']);
    // Closed already, or on the sort's first column: as it was.
    expect(withRangesClosed(amountFrom1000ByTime)).toEqual(amountFrom1000ByTime);
    expect(withRangesClosed(monthByTime('asc'))).toEqual(monthByTime('asc'));
    expect(writings(withRangesWritten(amountFrom1000ByTime, 'opaque'))).toEqual(['in', 'opaque', 'opaque']);
  });

  it('leaves unindexed only the bound on the side a placed page starts from', () => {
    expect(writings(withStartSideUnindexed(monthByTime('asc'), 'asc'))).toEqual(['unindexed', 'parameter']);
    expect(writings(withStartSideUnindexed(monthByTime('desc'), 'desc'))).toEqual(['parameter', 'unindexed']);
    // Bounds on another column than the sort's first are no side of the page's start.
    expect(writings(withStartSideUnindexed(amountFrom1000ByTime, 'desc'))).toEqual(['in', 'parameter', 'parameter']);
  });

  it('walks the sort’s index when the rows it reads to the page are fewer than the range holds', () => {
    // 70 % of 100,000 in range: page 1 reads ~14 rows walking, 70,000 and a sort by the range.
    expect(walkIsCheaper({ slice: 100_000, covered: 70_000 }, 0, 10)).toBe(true);
    // The page at 90 % is counted from the end: ~7,000 rows to skip, still fewer than 70,000.
    expect(walkIsCheaper({ slice: 100_000, covered: 70_000 }, 63_000, 10)).toBe(true);
    // 20 rows of 100,000 in range: walking would read the whole slice for them.
    expect(walkIsCheaper({ slice: 100_000, covered: 20 }, 0, 10)).toBe(false);
    // Nothing covered (a narrow range): the range's index.
    expect(walkIsCheaper({ slice: 100_000, covered: 0 }, 0, 10)).toBe(false);
    // The boundary: (skip + per_page) × slice against covered².
    expect(walkIsCheaper({ slice: 1000, covered: 100 }, 0, 10)).toBe(true);
    expect(walkIsCheaper({ slice: 1001, covered: 100 }, 0, 10)).toBe(false);
  });

  it('places a page with slivers when their rows cost less than the walk to the page from the nearer end', () => {
    // `gte 1510` at 1M: 642k of 1M in range, 822 rows in 1501–1509. The middle page walks ~500k entries; the slivers read 822 rows.
    expect(sliversAreCheaper({ slice: 1_000_000, covered: 642_280, sliver: 822 }, 321_000, 25)).toBe(true);
    // Page 81 (a skip of 2,000 rows, where OFFSET stops): ~3,150 entries walked against 822 × 4.
    expect(sliversAreCheaper({ slice: 1_000_000, covered: 642_280, sliver: 822 }, 2000, 25)).toBe(false);
    // The same a little deeper, or counted from the end.
    expect(sliversAreCheaper({ slice: 1_000_000, covered: 642_280, sliver: 822 }, 2200, 25)).toBe(true);
    expect(sliversAreCheaper({ slice: 1_000_000, covered: 642_280, sliver: 822 }, 642_280 - 2200, 25)).toBe(true);
    // Nothing covered: the range's index decides (walkIsCheaper), the slivers stand.
    expect(sliversAreCheaper({ slice: 1000, covered: 0, sliver: 10 }, 0, 10)).toBe(true);
  });

  it('weighs the range’s sort by what it keeps (SQLite): a first page’s few rows cheaply, a deep page’s whole sort dearly', () => {
    // 0.06 % of 10M payments in range (`amount ≤ 100`): page 1 walks ~28k entries for its 15
    // rows; the range's index reads 5,400 and keeps 15.
    expect(walkIsCheaper({ slice: 10_000_000, covered: 5400 }, 0, 15, sqliteSortCost(15))).toBe(false);
    // Its middle page keeps 2,700 rows sorted: still the range's index, a walk would skip 2,700 × 1,850 entries.
    expect(walkIsCheaper({ slice: 10_000_000, covered: 5400 }, 2700, 15, sqliteSortCost(2685 + 15))).toBe(false);
    // 30 % in range, its middle page: a whole sort of 150k rows costs more than walking to them.
    expect(walkIsCheaper({ slice: 1_000_000, covered: 300_000 }, 150_000, 15)).toBe(false);
    expect(walkIsCheaper({ slice: 1_000_000, covered: 300_000 }, 150_000, 15, sqliteSortCost(149_985 + 15))).toBe(true);
    expect(sqliteSortCost(15)).toBeLessThan(sqliteSortCost(150_000));
  });

  it('writes the sort’s first column unindexed, and only that, to read the range’s index instead', () => {
    const twoKeys: ListQuery = { ...amountFrom1000ByTime, sort: [...amountFrom1000ByTime.sort, { column: 'amount', direction: 'asc' }] };
    expect(withSortUnindexed(twoKeys).sort).toEqual([
      { column: 'created_at', direction: 'desc', written: 'unindexed' },
      { column: 'amount', direction: 'asc' },
    ]);
    expect(withSortUnindexed(twoKeys).conditions).toBe(twoKeys.conditions);
  });

  it('closes a range with no lower bound at its type’s far end, so a generic plan counts its lower edge as few rows', () => {
    const upTo100: ListQuery = {
      conditions: [{ column: 'amount', match: 'range', op: 'lte', value: 100 }],
      sort: [{ column: 'created_at', direction: 'desc' }],
    };
    expect(withLowEndClosed(upTo100, 'amount').conditions).toEqual([
      { column: 'amount', match: 'range', op: 'lte', value: 100 },
      { column: 'amount', match: 'range', op: 'gte', value: '-9223372036854775808' },
    ]);
    const before: ListQuery = { conditions: [{ column: 'created_at', match: 'range', op: 'lt', value: '2026-09-01T00:00:00.000Z' }], sort: [] };
    expect(withLowEndClosed(before, 'created_at').conditions.at(-1)).toEqual({ column: 'created_at', match: 'range', op: 'gte', value: '-infinity' });
    // Bounded below already, or another column: unchanged.
    expect(withLowEndClosed(amountFrom1000ByTime, 'amount')).toBe(amountFrom1000ByTime);
    expect(withLowEndClosed(upTo100, 'created_at')).toBe(upTo100);
  });

  it('walks only where one index gives the sort’s order: one value per dimension, one sort key', () => {
    const slice = { account_id: [''], status: [''], currency: ['EUR'], card_brand: [''] };
    expect(walkServesOrder(slice, amountFrom1000ByTime)).toBe(true);
    expect(walkServesOrder({ ...slice, currency: ['EUR', 'USD'] }, amountFrom1000ByTime)).toBe(false);
    expect(walkServesOrder(slice, { ...amountFrom1000ByTime, sort: [...amountFrom1000ByTime.sort, { column: 'amount', direction: 'asc' }] })).toBe(false);
  });
});
