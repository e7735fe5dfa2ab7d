import { describe, expect, it } from 'vitest';
import {
  amountClassesOf,
  amountClassOf,
  amountClassRun,
  amountClassSortKey,
  amountClassCounts,
  amountClassLevelsOf,
  AMOUNT_CLASS_LEVELS,
  digitClassesOf,
  digitClassOf,
  TWO_DIGIT_CLASS_LEVELS,
  twoDigitClassOf,
} from '../../../src/lists/counters/amountClassBuckets.ts';

/** One-significant-digit values of up to 11 digits (1 … 9, 10, 20 … 90, 100 … 9·10^10), 0, and 10^11 … 10^18 (classes of whole numbers of digits past 11). */
const ROUNDS = [
  0,
  ...Array.from({ length: 11 }, (_, e) => Array.from({ length: 9 }, (_, l) => (l + 1) * 10 ** e)).flat(),
  ...Array.from({ length: 5 }, (_, e) => 10 ** (e + 11)),
];
const ONE_DIGIT = ROUNDS.filter((r) => r < 10 ** 11);
const EDGES = [...new Set(ROUNDS.flatMap((r) => [r - 1, r, r + 1]))].sort((a, b) => a - b);
/** Amounts to test the classes with: the edges, values between them, and a few beyond 11 digits and below 0. */
const AMOUNTS = [...EDGES, -7, 15, 345, 4321, 56_789, 123_456_789_012, 9_000_000_000_000, 4_500_000_000_000_000].sort((a, b) => a - b);

describe('amount classes', () => {
  it('are one significant digit wide, with each round value a class of its own', () => {
    expect([-3, 0, 1, 9, 10, 11, 19, 20, 99, 100, 101, 5000, 5001, 5999, 6000].map(amountClassOf)).toEqual([
      '0000',
      '0100',
      '0110',
      '0190',
      '0210',
      '0211',
      '0211',
      '0220',
      '0291',
      '0310',
      '0311',
      '0450',
      '0451',
      '0451',
      '0460',
    ]);
  });

  it('sort as text in the order of the amounts they hold, from below 0 to past 11 digits', () => {
    const keys = AMOUNTS.map((a) => amountClassSortKey(amountClassOf(a)));
    expect(keys.every((k, i) => i === 0 || keys[i - 1] <= k)).toBe(true);
    expect(keys.every((k) => k.startsWith('created_at.a') && k > 'created_at')).toBe(true);
  });

  it('make a range whose ends are open, 0, R or R+1 for a one-significant-digit R exactly a run of classes', () => {
    const bounds = [undefined, ...EDGES.filter((e) => e >= 0)];
    const edge = new Set([...ROUNDS, ...ONE_DIGIT.map((r) => r + 1)]);
    const onEdge = (b: number | undefined) => b === undefined || edge.has(b);
    const classOf = AMOUNTS.map(amountClassOf);
    const wrong: unknown[] = [];
    let placed = 0;
    for (const low of bounds) {
      for (const high of bounds) {
        const classes = amountClassesOf(low, high);
        // Placed exactly when both ends are class edges and the range holds some whole amount
        // (the intervals above 1 … 9 hold none: gte 6 & lt 6, the interval above 5, is empty).
        const empty = low !== undefined && high !== undefined && high <= low;
        if ((classes !== undefined) !== (onEdge(low) && onEdge(high) && !empty)) wrong.push({ low, high, classes });
        if (!classes) continue;
        placed++;
        const inClasses = new Set(classes);
        AMOUNTS.forEach((a, i) => {
          const inRange = (low === undefined || a >= low) && (high === undefined || a < high);
          if (inClasses.has(classOf[i]) !== inRange) wrong.push({ low, high, a, inRange });
        });
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(placed).toBeGreaterThan(10_000);
  });

  it('leave a range with another end to the row-by-row ways', () => {
    expect(amountClassesOf(1500, undefined)).toBeUndefined();
    expect(amountClassesOf(undefined, 5002)).toBeUndefined();
    expect(amountClassesOf(-1, undefined)).toBeUndefined();
    expect(amountClassesOf(2 * 10 ** 12, undefined)).toBeUndefined();
    expect(amountClassesOf(5000, 5001)).toEqual(['0450']);
    expect(amountClassesOf(5001, 6000)).toEqual(['0451']);
    expect(amountClassesOf(undefined, 0)).toEqual(['0000']);
  });

  it('are also counted by number of digits, the coarser classes 0021 kept, under a sort key of their own', () => {
    expect([-3, 0, 9, 10, 99, 100, 999, 1000, 5000].map(digitClassOf)).toEqual(['00', '01', '01', '02', '02', '03', '03', '04', '04']);
    expect(amountClassCounts(5000).map((c) => c.sortKey)).toEqual(['created_at.a04', 'created_at.a0450', 'created_at.a04500']);
    expect(digitClassesOf(1000, undefined)).toEqual(Array.from({ length: 16 }, (_, i) => String(i + 4).padStart(2, '0')));
    expect(digitClassesOf(1000, 10_000)).toEqual(['04']);
    expect(digitClassesOf(undefined, 0)).toEqual(['00']);
    expect(digitClassesOf(5000, undefined)).toBeUndefined();
  });

  it('read a range from the fewest classes of either kind: whole numbers of digits coarse, the rest fine', () => {
    expect(amountClassRun(1000, undefined)?.inside).toEqual(digitClassesOf(1000, undefined));
    expect(amountClassRun(1000, undefined)?.outside).toEqual(['00', '01', '02', '03']);
    expect(amountClassRun(0, 100)?.inside).toEqual(['01', '02']);
    expect(amountClassRun(5000, undefined)?.inside).toEqual([
      '0450',
      '0451',
      '0460',
      '0461',
      '0470',
      '0471',
      '0480',
      '0481',
      '0490',
      '0491',
      ...digitClassesOf(10_000, undefined)!,
    ]);
    expect(amountClassRun(5000, undefined)?.outside).toEqual(['00', '01', '02', '03', '0410', '0411', '0420', '0421', '0430', '0431', '0440', '0441']);
    expect(amountClassRun(1510, undefined)).toBeUndefined();
    // Either way, the classes inside hold exactly the range's amounts and those outside the rest.
    const classesOf = (a: number) => [digitClassOf(a), amountClassOf(a), twoDigitClassOf(a)].filter((c) => c !== undefined);
    for (const [low, high] of [
      [1000, undefined],
      [0, 100],
      [5000, undefined],
      [1000, 5001],
      [21, 500],
      [undefined, 0],
    ] as const) {
      const run = amountClassRun(low, high)!;
      for (const a of AMOUNTS) {
        const inRange = (low === undefined || a >= low) && (high === undefined || a < high);
        const hits = (classes: string[]) => classesOf(a).filter((c) => classes.includes(c)).length;
        expect([hits(run.inside), hits(run.outside)], `${a} in [${low}, ${high})`).toEqual(inRange ? [1, 0] : [0, 1]);
      }
    }
  });

  describe('of two significant digits (0025)', () => {
    /** Two-significant-digit values of 2 to 11 digits (10 … 99, 100, 110 … 990, …), and their neighbours. */
    const TWO_ROUNDS = Array.from({ length: 10 }, (_, e) => Array.from({ length: 90 }, (_, m) => (m + 10) * 10 ** e)).flat();
    const TWO_EDGES = [...new Set([...EDGES, ...TWO_ROUNDS.flatMap((r) => [r - 1, r, r + 1])])].sort((a, b) => a - b);
    const TWO_AMOUNTS = [...new Set([...AMOUNTS, ...TWO_EDGES, 155, 1234, 1501, 2499, 34_567, 349_999])].sort((a, b) => a - b);
    const classesOf = (a: number) => [digitClassOf(a), amountClassOf(a), twoDigitClassOf(a)].filter((c) => c !== undefined);

    it('are two significant digits wide, each round value a class of its own, for 2 to 11 digits only', () => {
      expect([-3, 0, 9, 10, 11, 99, 100, 101, 109, 110, 1499, 1500, 1501, 1599, 1600, 2000, 99_999_999_999, 100_000_000_000].map(twoDigitClassOf)).toEqual([
        undefined,
        undefined,
        undefined,
        '02100',
        '02110',
        '02990',
        '03100',
        '03101',
        '03101',
        '03110',
        '04141',
        '04150',
        '04151',
        '04151',
        '04160',
        '04200',
        '11991',
        undefined,
      ]);
    });

    it('are counted on the 16 days and the day only, and a descent summing one stops at the day', () => {
      expect(TWO_DIGIT_CLASS_LEVELS.map((l) => l.level)).toEqual([0, 1]);
      expect(amountClassCounts(1500).map((c) => [c.sortKey, c.levels.map((l) => l.level)])).toEqual([
        ['created_at.a04', [0, 1, 2]],
        ['created_at.a0411', [0, 1, 2]],
        ['created_at.a04150', [0, 1]],
      ]);
      expect(amountClassCounts(5).map((c) => c.sortKey)).toEqual(['created_at.a01', 'created_at.a0150']);
      expect(amountClassLevelsOf(['created_at.a05', 'created_at.a0420', 'created_at.a04150'])).toBe(TWO_DIGIT_CLASS_LEVELS);
      expect(amountClassLevelsOf(['created_at.a05', 'created_at.a0420'])).toBe(AMOUNT_CLASS_LEVELS);
    });

    it('make a range whose ends have two significant digits (or are R+1 for one) exactly a run of classes, read from the coarsest', () => {
      expect(amountClassRun(1500, undefined)?.inside.slice(0, 12)).toEqual([
        '04150',
        '04151',
        '04160',
        '04161',
        '04170',
        '04171',
        '04180',
        '04181',
        '04190',
        '04191',
        '0420',
        '0421',
      ]);
      expect(amountClassRun(1500, undefined)?.outside).toEqual([
        '00',
        '01',
        '02',
        '03',
        '0410',
        '04101',
        '04110',
        '04111',
        '04120',
        '04121',
        '04130',
        '04131',
        '04140',
        '04141',
      ]);
      expect(amountClassRun(99, 100)?.inside).toEqual(['02990']);
      // One-significant-digit ranges read what they read before.
      expect(amountClassRun(5000, undefined)?.inside.every((c) => c.length <= 4)).toBe(true);
      expect(amountClassRun(1000, 5001)?.inside.every((c) => c.length <= 4)).toBe(true);
      // Three significant digits: no run.
      for (const [low, high] of [
        [1510, undefined],
        [undefined, 1251],
        [125, 350],
        [122, 350],
      ] as const)
        expect(amountClassRun(low, high), `[${low}, ${high})`).toBeUndefined();
    });

    it('hold exactly the range’s amounts inside and the rest outside, for pairs of two-digit edges', () => {
      const bounds = [undefined, ...TWO_EDGES.filter((e) => e >= 0 && e < 10 ** 6)];
      const edge = new Set([...ROUNDS, ...TWO_ROUNDS, ...TWO_ROUNDS.map((r) => r + 1), ...ONE_DIGIT.map((r) => r + 1)]);
      const onEdge = (b: number | undefined) => b === undefined || edge.has(b);
      const sample = TWO_AMOUNTS.filter((_, i) => i % 97 === 0);
      const wrong: unknown[] = [];
      let placed = 0;
      // Every 2nd low against every 5th high: ~100k ranges, each checked on the amounts at and beside its ends and a sample of the rest.
      for (const low of bounds.filter((_, i) => i % 2 === 0)) {
        for (const high of bounds.filter((_, j) => j % 5 === 0)) {
          const run = amountClassRun(low, high);
          const empty = low !== undefined && high !== undefined && high <= low;
          if ((run !== undefined) !== (onEdge(low) && onEdge(high) && !empty)) wrong.push({ low, high, run: !!run });
          if (!run) continue;
          placed++;
          const inside = new Set(run.inside);
          const outside = new Set(run.outside);
          const near = [low, high].flatMap((b) => (b === undefined ? [] : [b - 1, b, b + 1]));
          for (const a of [...near, ...sample]) {
            const inRange = (low === undefined || a >= low) && (high === undefined || a < high);
            const classes = classesOf(a);
            const hits = [classes.filter((c) => inside.has(c)).length, classes.filter((c) => outside.has(c)).length];
            if (hits[0] !== (inRange ? 1 : 0) || hits[1] !== (inRange ? 0 : 1)) wrong.push({ low, high, a, inRange, hits });
          }
        }
        if (wrong.length > 5) break;
      }
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(placed).toBeGreaterThan(10_000);
    });
  });
});
