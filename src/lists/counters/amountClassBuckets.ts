import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from '../../db/schema.ts';
import { sliceKeyOf, type Dimension, type SliceKey } from './countedSlices.ts';
import { bucketLevels } from './sortBuckets.ts';

/**
 * A payment's created_at buckets counted per amount class, for the whole list and per currency, so a deep page of
 * an amount range sorted by created_at is placed by the same bucket descent as any other (findInBuckets.ts).
 * Three kinds of class (digits; one and two significant digits) make every range with few-digit ends a run of
 * classes, keys `created_at.aDDLF` sorting as the amounts do. Two-digit classes stop at the day: on the hour they
 * would be about a row per payment (decisions 0021, 0024).
 */
export const AMOUNT_CLASS_SLICES: ReadonlyArray<{ dims: readonly Dimension[] }> = [{ dims: [] }, { dims: ['currency'] }];

const LARGEST_DIGITS = 19; // 9223372036854775807 has 19 digits
/** Amounts of up to this many digits have one-significant-digit classes; longer ones a class per number of digits. */
const ONE_DIGIT_CLASSES_UP_TO = 11;

/** An amount's two-significant-digit class (0025), or undefined when it has none (below 10, or past 11 digits). */
export function twoDigitClassOf(amount: number): string | undefined {
  if (amount < 10) return undefined;
  const digits = String(Math.trunc(amount));
  if (digits.length > ONE_DIGIT_CLASSES_UP_TO) return undefined;
  return `${String(digits.length).padStart(2, '0')}${digits.slice(0, 2)}${/^0*$/.test(digits.slice(2)) ? '0' : '1'}`;
}

/** The same as SQL; null when the amount has none (the rebuild drops those groups). */
export function twoDigitClassSql(dialect: Dialect): string {
  const text = 'cast(amount as text)';
  const dd = dialect === 'postgres' ? `lpad(length(${text})::text, 2, '0')` : `substr('0' || length(${text}), -2, 2)`;
  return `(case when amount < 10 or length(${text}) > ${ONE_DIGIT_CLASSES_UP_TO} then null
    else ${dd} || substr(${text}, 1, 2) || case when ltrim(substr(${text}, 3), '0') = '' then '0' else '1' end end)`;
}

/** Whether a class (the part after `created_at.a`) is a two-significant-digit one: only theirs are five characters. */
function isTwoDigitClass(amountClass: string): boolean {
  return amountClass.length === 5;
}

/** The class of an amount (the sort key's part after `created_at.a`). */
export function amountClassOf(amount: number): string {
  if (amount < 0) return '0000';
  const digits = String(Math.trunc(amount));
  const dd = String(digits.length).padStart(2, '0');
  if (digits.length > ONE_DIGIT_CLASSES_UP_TO) return `${dd}00`;
  return `${dd}${digits[0]}${/^0*$/.test(digits.slice(1)) ? '0' : '1'}`;
}

/** The same as SQL, for rebuilding the counts from rows (the same text on both databases but for the zero padding). */
export function amountClassSql(dialect: Dialect): string {
  const text = 'cast(amount as text)';
  const dd = dialect === 'postgres' ? `lpad(length(${text})::text, 2, '0')` : `substr('0' || length(${text}), -2, 2)`;
  return `(case when amount < 0 then '0000' when length(${text}) > ${ONE_DIGIT_CLASSES_UP_TO} then ${dd} || '00'
    else ${dd} || substr(${text}, 1, 1) || case when ltrim(substr(${text}, 2), '0') = '' then '0' else '1' end end)`;
}

/** An amount's number of digits as 0021 counts it: its coarser class (`00` below 0, `01` for 0–9). */
export function digitClassOf(amount: number): string {
  return amount < 0 ? '00' : String(String(Math.trunc(amount)).length).padStart(2, '0');
}

/** The same as SQL. */
export function digitClassSql(dialect: Dialect): string {
  const digits = '(case when amount < 0 then 0 else length(cast(amount as text)) end)';
  return dialect === 'postgres' ? `lpad(${digits}::text, 2, '0')` : `substr('0' || ${digits}, -2, 2)`;
}

const AMOUNT_CLASS_PREFIX = 'created_at.a';

/** The list_buckets sort key of one class's created_at buckets. */
export function amountClassSortKey(amountClass: string): string {
  return `${AMOUNT_CLASS_PREFIX}${amountClass}`;
}

/**
 * The created_at levels the classes are counted on: the tenant slices' levels down to the hour.
 * The 5-minute level would be three quarters of the class rows (a seed of 1M payments wrote 873k
 * of them, 15 % of its time) to spare a deep page a skip of about 230 index entries inside one
 * hour at 1M (2,300 at 10M).
 */
export const AMOUNT_CLASS_LEVELS = bucketLevels('created_at', 'tenant').filter((level) => level.level <= 2);

/** The levels the two-significant-digit classes are counted on: 16 days and day (on the hour they would be ~1 row per payment). */
export const TWO_DIGIT_CLASS_LEVELS = AMOUNT_CLASS_LEVELS.filter((level) => level.level <= 1);

/** The levels a class of any kind is counted on: one currency's classes to the day only (migration 0036). */
export function levelsOfClass(amountClass: string, byCurrency = false) {
  return byCurrency || isTwoDigitClass(amountClass) ? TWO_DIGIT_CLASS_LEVELS : AMOUNT_CLASS_LEVELS;
}

/** The levels on which every one of these class sort keys is counted (in one currency's slice, or the whole list's): those a descent summing them goes down. */
export function amountClassLevelsOf(sortKeys: readonly string[], byCurrency = false) {
  return byCurrency || sortKeys.some((k) => isTwoDigitClass(k.slice(AMOUNT_CLASS_PREFIX.length))) ? TWO_DIGIT_CLASS_LEVELS : AMOUNT_CLASS_LEVELS;
}

/**
 * Every class that can hold a whole amount, in amount order, with its least amount (the
 * negative class's is -Infinity). The intervals above 1 … 9 hold no whole amount and are left out.
 */
const AMOUNT_CLASSES: ReadonlyArray<{ amountClass: string; first: number }> = [
  { amountClass: amountClassOf(-1), first: -Infinity },
  { amountClass: amountClassOf(0), first: 0 },
  ...Array.from({ length: LARGEST_DIGITS }, (_, i) => i + 1).flatMap((d) => {
    const unit = 10 ** (d - 1);
    if (d > ONE_DIGIT_CLASSES_UP_TO) return [{ amountClass: amountClassOf(unit), first: unit }];
    return Array.from({ length: 9 }, (_, i) => (i + 1) * unit).flatMap((round) =>
      d === 1 ? [{ amountClass: amountClassOf(round), first: round }] : [round, round + 1].map((first) => ({ amountClass: amountClassOf(first), first })),
    );
  }),
];

/**
 * The indices (`first`, and `after` exclusive) of the run of `length` classes in amount order an
 * amount range is made of exactly, `startingAt` giving a class's index by its least amount: `low`
 * inclusive and `high` exclusive, either undefined when open; undefined when an end is no class's
 * least amount, or the range is empty.
 */
function runBetween(startingAt: (value: number) => number | undefined, length: number, low: number | undefined, high: number | undefined) {
  const first = low === undefined ? 0 : startingAt(low);
  const after = high === undefined ? length : startingAt(high);
  return first === undefined || after === undefined || after <= first ? undefined : { first, after };
}

/** The run of `classes` (in amount order, with their least amounts) an amount range is made of exactly (as runBetween), or undefined. */
function classesBetween(classes: ReadonlyArray<{ amountClass: string; first: number }>, low: number | undefined, high: number | undefined) {
  const startingAt = (value: number) => {
    const i = classes.findIndex((c) => c.first === value);
    return i < 0 ? undefined : i;
  };
  const run = runBetween(startingAt, classes.length, low, high);
  return run && classes.slice(run.first, run.after).map((c) => c.amountClass);
}

/**
 * The classes an amount range is made of exactly, its ends as integers: `low` inclusive and
 * `high` exclusive, either undefined when open; undefined when the range is not a run of whole
 * classes, or is empty.
 */
export function amountClassesOf(low: number | undefined, high: number | undefined): string[] | undefined {
  return classesBetween(AMOUNT_CLASSES, low, high);
}

/** The coarser classes, in amount order, with their least amounts. */
const DIGIT_CLASSES: ReadonlyArray<{ amountClass: string; first: number }> = [
  { amountClass: digitClassOf(-1), first: -Infinity },
  { amountClass: digitClassOf(0), first: 0 },
  ...Array.from({ length: LARGEST_DIGITS - 1 }, (_, i) => 10 ** (i + 1)).map((first) => ({ amountClass: digitClassOf(first), first })),
];

/** The coarser classes an amount range is made of exactly (ends as for amountClassesOf), or undefined. */
export function digitClassesOf(low: number | undefined, high: number | undefined): string[] | undefined {
  return classesBetween(DIGIT_CLASSES, low, high);
}

/**
 * The finest classes, in amount order, with their least amounts: the two-significant-digit
 * classes of 10 up to 11 digits, and the one-digit classes of the amounts that have none
 * (negative, 0–9, past 11 digits). Every whole amount is in exactly one.
 */
const FINEST_CLASSES: ReadonlyArray<{ amountClass: string; first: number }> = AMOUNT_CLASSES.flatMap((c) => {
  if (c.first < 10 || String(c.first).length > ONE_DIGIT_CLASSES_UP_TO) return [c];
  const unit = 10 ** (String(c.first).length - 2);
  const round = c.first - (c.first % (10 * unit));
  // {R} is {R} again; (R, R + 10·unit) is (R, R + unit), then {R + m·unit} and the interval above it for m = 1 … 9 (no intervals between two-digit amounts).
  const firsts =
    c.first === round
      ? [round]
      : Array.from({ length: 10 }, (_, m) => round + m * unit).flatMap((r) => [...(r === round ? [] : [r]), ...(unit > 1 ? [r + 1] : [])]);
  return firsts.map((first) => ({ amountClass: twoDigitClassOf(first)!, first }));
});

/** The one-digit class (kind 0022) a finest class lies in: its own when it is one. */
function oneDigitClassOf(amountClass: string): string {
  if (!isTwoDigitClass(amountClass)) return amountClass;
  const round = amountClass[3] === '0' && amountClass[4] === '0';
  return `${amountClass.slice(0, 3)}${round ? '0' : '1'}`;
}

/** A class of a coarser kind as the run of finest classes (FINEST_CLASSES' indices `start` to `end`, exclusive) it is made of. */
interface ClassRun {
  amountClass: string;
  start: number;
  end: number;
}

/** Runs of consecutive finest classes with the same parent. */
function runsOf(parentOf: (amountClass: string) => string): ClassRun[] {
  const runs: ClassRun[] = [];
  FINEST_CLASSES.forEach(({ amountClass }, i) => {
    const parent = parentOf(amountClass);
    if (runs.at(-1)?.amountClass === parent) runs[runs.length - 1].end = i + 1;
    else runs.push({ amountClass: parent, start: i, end: i + 1 });
  });
  return runs;
}

/** The digit classes, each with its one-digit classes, as runs of finest classes. */
const CLASS_TREE = runsOf((c) => c.slice(0, 2)).map((digits) => ({
  ...digits,
  children: runsOf(oneDigitClassOf).filter((one) => one.start >= digits.start && one.end <= digits.end),
}));

/**
 * Classes of any kind making exactly the amounts of the finest classes `start` to `end`
 * (exclusive): every one-digit class whose two-digit classes are all there is that class instead
 * (`0421` for the 19 classes of 2001–2999), and every number of digits whose one-digit classes
 * are all there is its digit class (`04` for the 18 of 1000–9999), so a range reads as few keys
 * and rows as it can.
 */
function coarsened(start: number, end: number): string[] {
  const out: string[] = [];
  const within = (run: ClassRun) => run.start >= start && run.end <= end;
  for (const digits of CLASS_TREE) {
    if (digits.end <= start || digits.start >= end) continue;
    if (within(digits)) {
      out.push(digits.amountClass);
      continue;
    }
    for (const one of digits.children) {
      if (one.end <= start || one.start >= end) continue;
      if (within(one)) out.push(one.amountClass);
      else for (let i = Math.max(start, one.start); i < Math.min(end, one.end); i++) out.push(FINEST_CLASSES[i].amountClass);
    }
  }
  return out;
}

/** The index of the finest class whose least amount is this, by amount. */
const FINEST_STARTING_AT = new Map(FINEST_CLASSES.map((c, i) => [c.first, i]));

/**
 * The classes, of any kind, an amount range is read from: those it is made of (`inside`) and those of the rest
 * (`outside`: the descent may read created_at's own buckets less these, when they are fewer; decision 0021).
 * `gte 5000` is the one-digit classes of 5000–9999 and the digit classes from 5 digits on; `gte 1500` begins with
 * the two-digit classes of 1500–1999. Undefined when the range is not made of whole classes.
 */
export function amountClassRun(low: number | undefined, high: number | undefined): { inside: string[]; outside: string[] } | undefined {
  const run = runBetween((value) => FINEST_STARTING_AT.get(value), FINEST_CLASSES.length, low, high);
  if (!run) return undefined;
  const { first, after } = run;
  return { inside: coarsened(first, after), outside: [...coarsened(0, first), ...coarsened(after, FINEST_CLASSES.length)] };
}

/**
 * The finest classes' edges around a whole amount: `below` the greatest least amount of a class at
 * or below it (-Infinity for a negative amount), `above` the least one past it (undefined past the
 * last class's). An amount range whose end is no class edge is the run of classes up to either
 * edge, less or plus the amounts between the end and that edge (lists/plan/amountClassRanges.ts).
 */
export function classEdgesAround(value: number): { below: number; above: number | undefined } {
  // FINEST_CLASSES are in amount order: the last whose least amount is at or below the value.
  let lo = 0;
  let hi = FINEST_CLASSES.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (FINEST_CLASSES[mid].first <= value) lo = mid;
    else hi = mid - 1;
  }
  return { below: FINEST_CLASSES[lo].first, above: FINEST_CLASSES[lo + 1]?.first };
}

export interface AmountClassDelta extends SliceKey {
  sortKey: string;
  level: number;
  bucket: number;
  delta: number;
}

/** The sort keys a payment's amount is counted under, with the levels each is counted on: its digit class's, its one-digit class's and (most amounts) its two-digit class's. */
export function amountClassCounts(amount: number, byCurrency = false): Array<{ sortKey: string; levels: typeof AMOUNT_CLASS_LEVELS }> {
  return classesOfAmount(amount).map((c) => ({ sortKey: amountClassSortKey(c), levels: levelsOfClass(c, byCurrency) }));
}

/** The classes an amount is counted in, one of each kind it has (the part after `created_at.a`). */
export function classesOfAmount(amount: number): string[] {
  const two = twoDigitClassOf(amount);
  return two === undefined ? [digitClassOf(amount), amountClassOf(amount)] : [digitClassOf(amount), amountClassOf(amount), two];
}

/** What a payment adds to (delta 1) or takes from (-1) the class counts. */
export function amountClassDeltas(p: { currency: string; created_at: string; amount: number }, delta: number): AmountClassDelta[] {
  const at = Date.parse(p.created_at);
  return AMOUNT_CLASS_SLICES.flatMap((slice) =>
    amountClassCounts(p.amount, slice.dims.includes('currency')).flatMap(({ sortKey, levels }) =>
      levels.map((level) => ({ ...sliceKeyOf(p, slice.dims), sortKey, level: level.level, bucket: level.of(at), delta })),
    ),
  );
}

/** The grouped `INSERT … SELECT`s that rebuild the class counts from the rows (`only`: a where clause, or nothing for every tenant). */
export function amountClassRebuildStatements(dialect: Dialect, only: RawBuilder<unknown>): Array<RawBuilder<unknown>> {
  return [
    ...[digitClassSql(dialect), amountClassSql(dialect)].flatMap((amountClass) => classRebuildStatements(dialect, only, amountClass, AMOUNT_CLASS_LEVELS)),
    ...classRebuildStatements(dialect, only, twoDigitClassSql(dialect), TWO_DIGIT_CLASS_LEVELS),
  ];
}

function classRebuildStatements(
  dialect: Dialect,
  only: RawBuilder<unknown>,
  amountClass: string,
  levels: typeof AMOUNT_CLASS_LEVELS,
): Array<RawBuilder<unknown>> {
  const sortKey = `'created_at.a' || ${amountClass}`;
  return AMOUNT_CLASS_SLICES.flatMap((slice) =>
    (slice.dims.includes('currency') ? TWO_DIGIT_CLASS_LEVELS : levels).map((level) => {
      const byCurrency = slice.dims.includes('currency');
      // Amounts with no class of this kind group under null, which is dropped.
      return sql`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
        select tenant_id, 'payments', ${sql.raw(sortKey)}, ${sql.lit(level.level)}, '', '', ${sql.raw(byCurrency ? 'currency' : "''")}, '', ${sql.raw(level.sql(dialect))}, count(*)
        from payments ${only}
        group by tenant_id, ${sql.raw(amountClass)}, ${sql.raw(byCurrency ? 'currency, ' : '')}${sql.raw(level.sql(dialect))}
        having ${sql.raw(amountClass)} is not null`;
    }),
  );
}

/**
 * The classes of each kind in amount order, each with its least amount: the digit classes, the
 * one-digit classes and the finest (two-digit where an amount has one). A page of a created_at
 * range in amount order is placed among them, coarsest kind first (lists/plan/amountOrderClasses.ts).
 */
export const CLASSES_IN_AMOUNT_ORDER: ReadonlyArray<ReadonlyArray<{ amountClass: string; first: number }>> = [DIGIT_CLASSES, AMOUNT_CLASSES, FINEST_CLASSES];
