import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classesOfAmount } from '../../../src/lists/counters/amountClassBuckets.ts';
import {
  childClasses,
  classCoverage,
  classHolding,
  classReadsCost,
  COARSEST_CLASSES,
  edgeRowsIn,
  walkedEntries,
  type AmountClass,
} from '../../../src/lists/plan/amountOrderClasses.ts';

const iso = (text: string) => ({ value: text });

/** Every class of a kind below `parent`, down to the finest, as [kind, class] pairs. */
function descendants(kind: number, parent: AmountClass): Array<[number, AmountClass]> {
  return childClasses(kind, parent).flatMap((c) => [[kind + 1, c] as [number, AmountClass], ...descendants(kind + 1, c)]);
}

describe('amount classes in amount order (a created_at range sorted by amount)', () => {
  it('each class is made of its children exactly, end to end, down to the finest kind', () => {
    for (const digits of COARSEST_CLASSES) {
      for (const [kind, parent] of [[0, digits] as [number, AmountClass], ...descendants(0, digits)]) {
        const children = childClasses(kind, parent);
        if (children.length === 0) continue;
        expect(children[0].first, parent.key).toBe(parent.first);
        expect(children.at(-1)?.end, parent.key).toBe(parent.end);
        for (let i = 1; i < children.length; i++) expect(children[i].first, parent.key).toBe(children[i - 1].end);
      }
    }
  });

  it('an amount lies in the class of each kind it is counted in (the keys the counts are kept under)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -5, max: 200 }), fc.integer({ min: 0, max: 99_999_999_999 })), (amount) => {
        let classes: readonly AmountClass[] = COARSEST_CLASSES;
        const counted = classesOfAmount(amount);
        for (let kind = 0; classes.length > 0; kind++) {
          const holding = classes.filter((c) => amount >= c.first && amount < c.end);
          expect(holding, `${amount} kind ${kind}`).toHaveLength(1);
          expect(counted, `${amount} kind ${kind}`).toContain(holding[0].key);
          classes = childClasses(kind, holding[0]);
        }
      }),
    );
  });

  it('covers a range by days (and the finest classes) only when its days cover what its hours do', () => {
    const month = classCoverage([
      { op: 'gte', ...iso('2026-03-01T00:00:00.000Z') },
      { op: 'lt', ...iso('2026-04-01T00:00:00.000Z') },
    ]);
    expect(month?.finest).toBe(true);
    expect(month?.segments.every((s) => s.level <= 1)).toBe(true);
    const hours = classCoverage([
      { op: 'gte', ...iso('2026-03-01T05:00:00.000Z') },
      { op: 'lt', ...iso('2026-04-01T00:00:00.000Z') },
    ]);
    expect(hours?.finest).toBe(false);
    expect(hours?.covered.low).toBe(Date.parse('2026-03-01T05:00:00.000Z'));
    // A nanosecond past the hour: that hour is only partly covered (its rows are edge rows).
    const past = classCoverage([{ op: 'gte', ...iso('2026-03-01T05:00:00.000000001Z') }]);
    expect(past?.covered.low).toBe(Date.parse('2026-03-01T06:00:00.000Z'));
    expect(
      classCoverage([
        { op: 'gte', ...iso('2026-03-01T05:00:00.001Z') },
        { op: 'lt', ...iso('2026-03-01T06:59:59.999Z') },
      ]),
    ).toBeUndefined();
  });

  it('places row `at` in the class holding it, from either end, as a brute force over the rows does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(5), { minLength: 1, maxLength: 12 }),
        fc.nat(60),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.nat(3),
        (counts, at, direction, before) => {
          const classes = counts.map((_, i) => ({ key: String(i), first: i * 10, end: i * 10 + 10 }));
          const rowsOf = (c: AmountClass) => counts[Number(c.key)];
          // The rows in list order, each labelled with its class, after `before` rows of something else.
          const order = direction === 'asc' ? classes : [...classes].reverse();
          const rows = [...Array.from({ length: before }, () => undefined), ...order.flatMap((c) => Array.from({ length: rowsOf(c) }, () => c.key))];
          const placed = classHolding(classes, rowsOf, direction, at, before);
          if (at < before || at >= rows.length) {
            if (at >= rows.length) expect(placed).toBeUndefined();
            return;
          }
          expect(placed?.cls.key).toBe(rows[at]);
          expect(rows[placed?.before ?? -1]).toBe(rows[at]);
          expect(rows[(placed?.before ?? 0) - 1]).not.toBe(rows[at]);
        },
      ),
    );
  });

  it('counts edge rows by amount into classes, ends exclusive', () => {
    const cls = { key: 'x', first: 100, end: 200 };
    expect(
      edgeRowsIn(
        [
          { amount: 99, n: 1 },
          { amount: 100, n: 2 },
          { amount: 199, n: 3 },
          { amount: 200, n: 4 },
        ],
        cls,
      ),
    ).toBe(5);
  });

  it('places a deep page of a month (1M payments, a sixth of them in it) rather than walk to it, and walks to a page near the start', () => {
    const month = classCoverage([
      { op: 'gte', value: '2026-03-01T00:00:00.000Z' },
      { op: 'lt', value: '2026-04-01T00:00:00.000Z' },
    ]);
    if (!month) throw new Error('a month covers whole hours');
    expect(walkedEntries(100_000, 10, 1_000_000, 172_000)).toBeGreaterThan(classReadsCost(month));
    expect(walkedEntries(2_000, 10, 1_000_000, 172_000)).toBeLessThan(classReadsCost(month));
  });

  it('weighs a walk by the share of the slice the rows walked are', () => {
    expect(walkedEntries(90, 10, 600, 100)).toBe(600);
    expect(walkedEntries(0, 10, 600, 0)).toBe(Number.POSITIVE_INFINITY);
  });
});
