import { describe, expect, it } from 'vitest';
import { classesOfAmount } from '../../../src/lists/counters/amountClassBuckets.ts';
import { amountClassPlanOfQuery, type AmountSliver } from '../../../src/lists/plan/amountClassRanges.ts';
import type { ListQuery } from '../../../src/lists/request/parseListQuery.ts';

type Op = 'gte' | 'gt' | 'lte' | 'lt';
const query = (...bounds: Array<[Op, number]>): ListQuery => ({
  sort: [{ column: 'created_at', direction: 'desc' }],
  conditions: bounds.map(([op, value]) => ({ column: 'amount', match: 'range', op, value })),
});
const HOLDS: Record<Op, (v: number, b: number) => boolean> = { gte: (v, b) => v >= b, gt: (v, b) => v > b, lte: (v, b) => v <= b, lt: (v, b) => v < b };
const inSliver = (v: number, s: AmountSliver) => (s.low === undefined || v >= s.low) && (s.high === undefined || v < s.high);

/** Ends off every class edge (three significant digits and more), the class edges beside them, and two-digit ones. */
const ENDS = [1510, 1501, 1599, 1600, 125, 121, 130, 345, 2345, 2301, 12_345, 12_001, 4998, 1001, 999, 1500, 35_000, 7, 0, 987_654];
const NEAR = [...new Set(ENDS.flatMap((r) => [r - 1, r, r + 1]))].sort((a, b) => a - b);
/** Amounts the plans are held to: every end ±2 and a spread between. */
const AMOUNTS = [...new Set([-3, ...NEAR.flatMap((r) => [r - 2, r - 1, r, r + 1, r + 2]), ...Array.from({ length: 400 }, (_, i) => Math.round(1.04 ** i))])];

describe('amount ranges read from classes and slivers', () => {
  it('count each amount in range exactly once, and none outside it: the run’s classes plus or less its slivers', () => {
    const ranges: Array<Array<[Op, number]>> = [];
    for (const low of NEAR) {
      ranges.push([['gte', low]], [['gt', low]], [['lt', low]], [['lte', low]]);
      for (const high of NEAR.filter((h) => h > low))
        ranges.push([
          ['gte', low],
          ['lt', high],
        ]);
    }
    let placed = 0;
    const wrong: string[] = [];
    for (const bounds of ranges) {
      const plan = amountClassPlanOfQuery(query(...bounds));
      if (!plan) continue;
      placed++;
      const inside = new Set(plan.inside);
      for (const v of AMOUNTS) {
        const inRun = classesOfAmount(v).some((c) => inside.has(c)) ? 1 : 0;
        const counted = inRun + plan.slivers.reduce((n, s) => n + (inSliver(v, s) ? s.sign : 0), 0);
        const want = bounds.every(([op, b]) => HOLDS[op](v, b)) ? 1 : 0;
        if (counted !== want) wrong.push(`${JSON.stringify(bounds)} counts ${v} ${counted} times`);
      }
      // Each sliver lies inside one two-significant-digit class: at most the amounts from an end to the nearer edge.
      for (const s of plan.slivers)
        if (s.low !== undefined && s.high !== undefined && s.low >= 10) expect(s.high - s.low, JSON.stringify(bounds)).toBeLessThan(s.low / 10);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(placed).toBeGreaterThan(ranges.length / 2);
  });

  it('meet an end at the nearer class edge, and leave ranges narrower than their slivers to the row-by-row ways', () => {
    expect(amountClassPlanOfQuery(query(['gte', 1510]))?.slivers).toEqual([{ low: 1501, high: 1510, sign: -1 }]);
    expect(amountClassPlanOfQuery(query(['gte', 1590]))?.slivers).toEqual([{ low: 1590, high: 1600, sign: 1 }]);
    expect(amountClassPlanOfQuery(query(['lte', 4998]))?.slivers).toEqual([{ low: 4999, high: 5000, sign: -1 }]);
    expect(amountClassPlanOfQuery(query(['gte', 125], ['lt', 345]))?.slivers).toEqual([
      { low: 121, high: 125, sign: -1 },
      { low: 341, high: 345, sign: 1 },
    ]);
    expect(amountClassPlanOfQuery(query(['gte', 1500]))?.slivers).toEqual([]);
    expect(amountClassPlanOfQuery(query(['gte', 1510], ['lt', 1520]))).toBeUndefined();
  });
});
