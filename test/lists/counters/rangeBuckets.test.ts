import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketSegments, coveredRange, type RangeBound } from '../../../src/lists/counters/rangeBuckets.ts';
import { BUCKETED_COLUMNS, bucketLevels, type BucketedColumn, type SliceKind } from '../../../src/lists/counters/sortBuckets.ts';

const KINDS: SliceKind[] = ['tenant', 'account'];
const NS_PER_MS = 1_000_000n;

/** An instant given as text, to the nanosecond: an ISO time, maybe with digits past the millisecond, maybe at an offset. */
function timeText(ns: bigint, offsetMinutes: number): string {
  const ms = ns / NS_PER_MS - (ns % NS_PER_MS < 0n ? 1n : 0n);
  const past = ns - ms * NS_PER_MS;
  const local = new Date(Number(ms) + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const digits = past === 0n ? '' : String(past).padStart(6, '0');
  const zone =
    offsetMinutes === 0
      ? 'Z'
      : `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0')}:${String(Math.abs(offsetMinutes) % 60).padStart(2, '0')}`;
  return `${local}${digits}${zone}`;
}

/** Whether an instant (ns) satisfies a bound given to the nanosecond (ns). */
function holds(op: RangeBound['op'], v: bigint, bound: bigint): boolean {
  return op === 'gte' ? v >= bound : op === 'gt' ? v > bound : op === 'lte' ? v <= bound : v < bound;
}

/**
 * A value on either side of some bucket edge of any level (or exactly on it): where an off-by-one
 * would show. Time in ns; amounts in minor units.
 */
function nearEdge(column: BucketedColumn, kind: SliceKind) {
  const levels = bucketLevels(column, kind);
  const base =
    column === 'created_at'
      ? fc.integer({ min: 0, max: 4_102_444_800_000 })
      : fc.oneof(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 10 ** 12 }));
  return fc.tuple(base, fc.integer({ min: 0, max: levels.length - 1 }), fc.constantFrom(-2, -1, 0, 0, 0, 1, 2), fc.boolean()).map(([v, i, nudge, onEdge]) => {
    const level = levels[i];
    const at = onEdge ? level.low(level.of(v)) : v;
    return Math.max(0, at + nudge);
  });
}

function boundsArb(column: BucketedColumn, kind: SliceKind) {
  const op = fc.constantFrom('gte' as const, 'gt' as const, 'lte' as const, 'lt' as const);
  if (column === 'amount') {
    return fc
      .array(fc.record({ op, value: nearEdge(column, kind) }), { minLength: 1, maxLength: 3 })
      .map((bs) => bs.map((b) => ({ ...b, exact: BigInt(b.value) })));
  }
  // Times: a millisecond near an edge, nudged by up to a millisecond at ns precision, written at an offset.
  return fc
    .array(
      fc.record({
        op,
        ms: nearEdge(column, kind),
        ns: fc.constantFrom(0, 0, 0, 1, 999_999, 500_000),
        offset: fc.constantFrom(0, 0, 330, -480),
      }),
      { minLength: 1, maxLength: 3 },
    )
    .map((bs) =>
      bs.map((b) => {
        const exact = BigInt(b.ms) * NS_PER_MS + BigInt(b.ns);
        return { op: b.op, value: timeText(exact, b.offset), exact };
      }),
    );
}

describe('the buckets wholly inside a range', () => {
  for (const column of BUCKETED_COLUMNS) {
    for (const kind of KINDS) {
      const levels = bucketLevels(column, kind);
      const finest = levels[levels.length - 1];
      /** A finest bucket's values at the column's precision: amounts are integers, times are real (checked to the ns). */
      const extremes = (b: number): [bigint, bigint] =>
        column === 'amount'
          ? [BigInt(finest.low(b)), BigInt(finest.high(b) - 1)]
          : [BigInt(finest.low(b)) * NS_PER_MS, BigInt(finest.high(b)) * NS_PER_MS - 1n];
      /** Every value of the bucket at ns precision is in the range: what taking its count must never get wrong. */
      const inside = (b: number, bounds: Array<{ op: RangeBound['op']; exact: bigint }>) =>
        bounds.every((bound) => extremes(b).every((v) => holds(bound.op, v, bound.exact)));
      /**
       * The same for real-valued instants (times are taken as reals, whatever precision a stored
       * one has): the low edge is in the bucket, the high edge only approached from below.
       */
      const insideReals = (b: number, bounds: Array<{ op: RangeBound['op']; exact: bigint }>) =>
        column === 'amount'
          ? inside(b, bounds)
          : bounds.every((bound) => {
              const [lo, hi] = [BigInt(finest.low(b)) * NS_PER_MS, BigInt(finest.high(b)) * NS_PER_MS];
              return bound.op === 'gte' || bound.op === 'gt' ? holds(bound.op, lo, bound.exact) : hi <= bound.exact;
            });

      it(`${column} (${kind}): are exactly the finest buckets every value of which is in the range, edges at full precision`, () => {
        fc.assert(
          fc.property(boundsArb(column, kind), (bounds) => {
            const covered = coveredRange(column, levels, bounds);
            // Brute force: every finest bucket around each bound, and one far inside the range.
            const around = new Set<number>();
            for (const b of bounds) {
              const at = column === 'amount' ? Number(b.exact) : Number(b.exact / NS_PER_MS);
              let bucket = finest.of(Math.max(0, at));
              for (let k = 0; k < 3 && bucket > 0; k++) bucket = finest.of(finest.low(bucket) - 1);
              for (let k = 0; k < 7; k++, bucket = finest.of(finest.high(bucket))) around.add(bucket);
            }
            for (const bucket of around) {
              const covers = covered !== undefined && finest.low(bucket) >= covered.low && (covered.high === undefined || finest.high(bucket) <= covered.high);
              const why = `bucket ${bucket} [${finest.low(bucket)}, ${finest.high(bucket)}) for ${JSON.stringify(bounds.map((b) => [b.op, b.value]))}`;
              if (covers) expect(inside(bucket, bounds), why).toBe(true);
              expect(covers, why).toBe(insideReals(bucket, bounds));
            }
            if (covered) {
              // Its ends are finest bucket edges.
              expect(finest.low(finest.of(covered.low))).toBe(covered.low);
              if (covered.high !== undefined) expect(finest.low(finest.of(covered.high))).toBe(covered.high);
            }
          }),
          { numRuns: 3000 },
        );
      });

      it(`${column} (${kind}): are covered once each by a few segments of levels as coarse as fit`, () => {
        const edge = nearEdge(column, kind);
        fc.assert(
          fc.property(edge, fc.option(edge, { nil: undefined }), (a, b) => {
            const low = finest.low(finest.of(b === undefined ? a : Math.min(a, b)));
            const highRaw = b === undefined ? undefined : finest.low(finest.of(Math.max(a, b)));
            if (highRaw !== undefined && highRaw <= low) return;
            const segments = bucketSegments(levels, highRaw === undefined ? { low } : { low, high: highRaw });
            // As value intervals, sorted: they tile [low, high) with no gap and no overlap.
            const intervals = segments
              .map((s) => {
                const level = levels.find((l) => l.level === s.level)!;
                expect(s.from).toBeDefined();
                return [level.low(s.from as number), s.to === undefined ? Number.POSITIVE_INFINITY : level.high(s.to)] as const;
              })
              .sort((x, y) => x[0] - y[0]);
            expect(intervals[0][0]).toBe(low);
            for (let i = 1; i < intervals.length; i++) expect(intervals[i][0]).toBe(intervals[i - 1][1]);
            expect(intervals[intervals.length - 1][1]).toBe(highRaw ?? Number.POSITIVE_INFINITY);
            for (const [from, to] of intervals) expect(from).toBeLessThan(to);
            // At most one run at the coarsest level and two per finer level.
            expect(segments.length).toBeLessThanOrEqual(2 * levels.length);
          }),
          { numRuns: 3000 },
        );
      });
    }
  }

  it('take a bound exactly on a bucket edge as on it, and one a nanosecond past it as inside the next bucket', () => {
    const levels = bucketLevels('created_at', 'tenant');
    const edge = Date.parse('2026-08-01T00:00:00Z');
    expect(coveredRange('created_at', levels, [{ op: 'gte', value: '2026-08-01T00:00:00.000Z' }])).toEqual({ low: edge });
    expect(coveredRange('created_at', levels, [{ op: 'gte', value: '2026-08-01T00:00:00.000000001Z' }])).toEqual({ low: edge + 3_600_000 });
    expect(coveredRange('created_at', levels, [{ op: 'gte', value: '2026-08-01T05:30:00.000+05:30' }])).toEqual({ low: edge });
    expect(coveredRange('created_at', levels, [{ op: 'gt', value: '2026-08-01T00:00:00.000Z' }])).toEqual({ low: edge + 3_600_000 });
    expect(coveredRange('created_at', levels, [{ op: 'lt', value: '2026-09-01T00:00:00.000Z' }])).toEqual({ low: 0, high: Date.parse('2026-09-01T00:00:00Z') });
    expect(coveredRange('created_at', levels, [{ op: 'lte', value: '2026-08-31T23:59:59.999Z' }])).toEqual({
      low: 0,
      high: Date.parse('2026-08-31T23:00:00Z'),
    });
    expect(coveredRange('amount', bucketLevels('amount', 'tenant'), [{ op: 'lte', value: 999 }])).toEqual({ low: 0, high: 1000 });
  });
});
