import { AMOUNT_CLASS_LEVELS, CLASSES_IN_AMOUNT_ORDER, TWO_DIGIT_CLASS_LEVELS } from '../counters/amountClassBuckets.ts';
import { bucketSegments, coveredRange, type BucketSegment, type CoveredRange, type RangeBound } from '../counters/rangeBuckets.ts';
import type { RangedTotal } from './rangedTotal.ts';
import type { ListTable, ListScope } from '../request/listScope.ts';
import { narrowedDimensions } from './listSlice.ts';
import type { ListQuery } from '../request/parseListQuery.ts';

/**
 * A `created_at` range in amount order ("last month's payments, largest first"), its page placed by the amount
 * class counts kept per time bucket (counters/amountClassBuckets.ts): a class's rows in the range are its counts
 * over the buckets wholly inside plus the edge hours' rows; the page is placed to a class from the nearer end,
 * coarsest kind first, then skipped in it on the amount index (decision 0026). Pure: amountOrderPage.ts reads.
 */

/** A class of amounts: its key (the part after `created_at.a`) and the amounts it holds, [first, end). */
export interface AmountClass {
  key: string;
  first: number;
  end: number;
}

/** The kinds, coarsest first, each in amount order with its classes' ends. */
const KINDS: AmountClass[][] = CLASSES_IN_AMOUNT_ORDER.map((classes) =>
  classes.map((c, i) => ({ key: c.amountClass, first: c.first, end: classes[i + 1]?.first ?? Number.POSITIVE_INFINITY })),
);

/** The digit classes, in amount order: where a descent starts. */
export const COARSEST_CLASSES: readonly AmountClass[] = KINDS[0];

/** The classes of the next finer kind that make up `parent` (of kind `kind`), in amount order; none past the finest kind. */
export function childClasses(kind: number, parent: AmountClass): AmountClass[] {
  return (KINDS[kind + 1] ?? []).filter((c) => c.first >= parent.first && c.first < parent.end);
}

/**
 * Which time buckets a range's class counts are summed over: those wholly inside it, of the levels the classes
 * are counted on. When its days cover as much as its hours (midnight to midnight), the two-digit classes (days
 * only) can be read and the descent goes three kinds deep (`finest`); else it stops at the one-digit classes. The
 * rows outside `covered` lie in at most two edge hours, read row by row. Undefined when no hour lies inside.
 */
export interface ClassCoverage {
  finest: boolean;
  covered: CoveredRange;
  segments: BucketSegment[];
}

/** 10000-01-01T00:00:00Z: past the last instant a time filter takes (rangedTotal.ts). */
const PAST_LAST_INSTANT = 253_402_300_800_000;

export function classCoverage(bounds: RangeBound[], byCurrency = false): ClassCoverage | undefined {
  // One currency's classes are counted to the day (levelsOfClass): its range is covered by days, all kinds deep.
  if (byCurrency) {
    const days = coveredRange('created_at', TWO_DIGIT_CLASS_LEVELS, bounds);
    if (!days || days.low >= PAST_LAST_INSTANT) return undefined;
    return { finest: true, covered: days, segments: bucketSegments(TWO_DIGIT_CLASS_LEVELS, days) };
  }
  const hours = coveredRange('created_at', AMOUNT_CLASS_LEVELS, bounds);
  if (!hours || hours.low >= PAST_LAST_INSTANT) return undefined;
  const days = coveredRange('created_at', TWO_DIGIT_CLASS_LEVELS, bounds);
  const finest = days !== undefined && days.low === hours.low && days.high === hours.high;
  return { finest, covered: hours, segments: bucketSegments(finest ? TWO_DIGIT_CLASS_LEVELS : AMOUNT_CLASS_LEVELS, hours) };
}

/** The class holding row `at` (0-based, in list order), the rows of the list before it, and its own rows. */
export interface PlacedClass {
  cls: AmountClass;
  before: number;
  rows: number;
}

/**
 * The class among `classes` (amount order) holding row `at` of the list, counted from `before`
 * rows ahead of the first of them in the list's direction; `rowsOf` gives a class's rows in the
 * range. Undefined when the counts hold fewer rows than that (they cannot, being kept with the
 * rows in one snapshot: the caller then finds the page the row-by-row way).
 */
export function classHolding(
  classes: readonly AmountClass[],
  rowsOf: (cls: AmountClass) => number,
  direction: 'asc' | 'desc',
  at: number,
  before: number,
): PlacedClass | undefined {
  let passed = before;
  for (const cls of direction === 'asc' ? classes : [...classes].reverse()) {
    const rows = rowsOf(cls);
    if (rows > 0 && passed + rows > at) return { cls, before: passed, rows };
    passed += rows;
  }
  return undefined;
}

/** The rows of a class among the edge rows (amount, rows), read by amount. */
export function edgeRowsIn(edges: ReadonlyArray<{ amount: number; n: number }>, cls: AmountClass): number {
  let n = 0;
  for (const e of edges) if (e.amount >= cls.first && e.amount < cls.end) n += e.n;
  return n;
}

/**
 * What placing a page costs before its own rows, in entries walked along the amount index: a statement each for
 * the slice's count, the edge rows, each kind of class read and the page (STATEMENT_ENTRIES), and a seek of
 * list_buckets per class key and run of time buckets (SEEK_ENTRIES). A rough weight taken on SQLite at 1M; on a
 * loaded machine a statement costs more walked entries (decision 0026).
 */
const STATEMENT_ENTRIES = 2000;
const SEEK_ENTRIES = 25;
const CLASS_KEYS_READ = { coarse: 21 + 18, finest: 21 + 18 + 19 };

/** The entries placing a page costs before its rows, for a coverage. */
export function classReadsCost(coverage: ClassCoverage): number {
  const statements = 1 + (coverage.covered.high === undefined ? 1 : 2) + (coverage.finest ? 3 : 2) + 1;
  const seeks = (coverage.segments.length + 1) * (coverage.finest ? CLASS_KEYS_READ.finest : CLASS_KEYS_READ.coarse);
  return STATEMENT_ENTRIES * statements + SEEK_ENTRIES * seeks;
}

/**
 * The entries a page walks along the amount index from a start: `skip` + per_page of the range's
 * rows, each found among `slice ÷ range` entries of the slice on average (the range's dates are
 * tested on each). The row-by-row ways (skip hops, deferred join) walk it from the list's start;
 * a placed page from its class's start, the class's own share of the slice.
 */
export function walkedEntries(skip: number, perPage: number, sliceRows: number, rangeRows: number): number {
  return rangeRows <= 0 ? Number.POSITIVE_INFINITY : ((skip + perPage) * sliceRows) / rangeRows;
}

/** Whether a page of amount order is placed by the amount classes: by cost (default), or always or never (tests). */
export type ClassPlacement = 'cost' | 'always' | 'never';

/**
 * Whether a ranged list is a `created_at` range in amount order that the amount-class counts can
 * place (amountOrderClasses.ts): the whole list or one currency (the slices the classes are kept
 * for), sorted by `amount` alone, either direction.
 */
export function amountOrderPlaceable(table: ListTable, scope: ListScope, query: ListQuery, ranged: RangedTotal | undefined): boolean {
  if (table !== 'payments' || !ranged || ranged.column !== 'created_at' || ranged.kind !== 'tenant' || scope.accountId !== undefined) return false;
  if (query.sort.length !== 1 || query.sort[0].column !== 'amount') return false;
  const narrowed = narrowedDimensions(ranged.slice);
  return narrowed.length === 0 || (narrowed.length === 1 && narrowed[0] === 'currency' && ranged.slice.currency.length === 1);
}
