import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUCKETED_COLUMNS, bucketLevels, childBuckets, type SliceKind } from '../../../src/lists/counters/sortBuckets.ts';

const KINDS: SliceKind[] = ['tenant', 'account'];
const values = {
  // Epoch ms from 1970 to 9999 (what created_at can hold), and amounts up to 15 digits.
  created_at: fc.integer({ min: 0, max: 253_402_300_799_999 }),
  amount: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 999_999_999_999_999 })),
};

describe('sort-key buckets', () => {
  for (const column of BUCKETED_COLUMNS) {
    for (const kind of KINDS) {
      const levels = bucketLevels(column, kind);

      it(`${column} (${kind}): every value lies in its bucket's range, and a larger value never gets a smaller bucket`, () => {
        fc.assert(
          fc.property(values[column], values[column], (a, b) => {
            for (const level of levels) {
              const bucket = level.of(a);
              expect(level.low(bucket)).toBeLessThanOrEqual(a);
              expect(level.high(bucket)).toBeGreaterThan(a);
              if (a <= b) expect(level.of(a)).toBeLessThanOrEqual(level.of(b));
            }
          }),
          { numRuns: 2000 },
        );
      });

      it(`${column} (${kind}): each finer bucket lies inside one coarser bucket, among that bucket's children`, () => {
        fc.assert(
          fc.property(values[column], (v) => {
            for (let i = 0; i + 1 < levels.length; i++) {
              const [parent, child] = [levels[i], levels[i + 1]];
              const [first, last] = childBuckets(parent, child, parent.of(v));
              expect(child.of(v)).toBeGreaterThanOrEqual(first);
              expect(child.of(v)).toBeLessThanOrEqual(last);
              expect(child.low(child.of(v))).toBeGreaterThanOrEqual(parent.low(parent.of(v)));
              expect(child.high(child.of(v))).toBeLessThanOrEqual(parent.high(parent.of(v)));
            }
          }),
          { numRuns: 2000 },
        );
      });
    }
  }

  it('puts amounts in buckets by leading digits: 1234 is in 1xxx, 12xx and 123x', () => {
    const [one, two, three] = bucketLevels('amount', 'tenant');
    expect([one.low(one.of(1234)), one.high(one.of(1234))]).toEqual([1000, 2000]);
    expect([two.low(two.of(1234)), two.high(two.of(1234))]).toEqual([1200, 1300]);
    expect([three.low(three.of(1234)), three.high(three.of(1234))]).toEqual([1230, 1240]);
    expect([three.low(three.of(57)), three.high(three.of(57))]).toEqual([57, 58]);
  });
});
