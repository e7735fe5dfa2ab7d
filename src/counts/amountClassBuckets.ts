import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from '../db/schema.ts';
import { sliceKeyOf, type Dimension, type SliceKey } from './countedSlices.ts';
import { bucketLevels } from './sortBuckets.ts';

/**
 * Counts in two dimensions (issue 31 item 2): a payment's `created_at` buckets counted per
 * amount class, so that a deep page of an amount range sorted by `created_at` is placed by the
 * same bucket descent as any other (listing/findInBuckets.ts), summing only the classes the range
 * is made of. An amount's class is its number of decimal digits (0 for a negative amount):
 * class d ≥ 2 holds [10^(d-1), 10^d), class 1 holds [0, 10). A range whose ends are 0, a power
 * of ten or open is exactly a run of classes (`filter[amount][gte]=1000` is classes 4 and up);
 * other ranges keep the row-by-row ways (docs/performance.md, "Counts in two dimensions").
 *
 * Kept in list_buckets (migration 0021) beside the one-dimensional buckets, with the sort key
 * `created_at.aNN` (NN the class, two digits, so the text order is the class order), on the
 * created_at tenant levels down to the hour (16 days, day, hour), for the whole list and for one
 * currency: 6 rows per create, in the same upsert as the others. A status change moves none of
 * them (neither created_at, amount nor currency changes).
 */
export const AMOUNT_CLASS_SLICES: ReadonlyArray<{ dims: readonly Dimension[] }> = [{ dims: [] }, { dims: ['currency'] }];

const LARGEST_CLASS = 19; // 9223372036854775807 has 19 digits

/** The class of an amount. */
export function amountClassOf(amount: number): number {
  return amount < 0 ? 0 : String(Math.trunc(amount)).length;
}

/** The same as SQL, for rebuilding the counts from rows. */
export function amountClassSql(): string {
  return '(case when amount < 0 then 0 else length(cast(amount as text)) end)';
}

/** The list_buckets sort key of one class's created_at buckets. */
export function amountClassSortKey(amountClass: number): string {
  return `created_at.a${String(amountClass).padStart(2, '0')}`;
}

/**
 * The created_at levels the classes are counted on: the tenant slices' levels down to the hour.
 * The 5-minute level would be three quarters of the class rows (a seed of 1M payments wrote 873k
 * of them, 15 % of its time) to spare a deep page a skip of about 230 index entries inside one
 * hour at 1M (2,300 at 10M).
 */
export const AMOUNT_CLASS_LEVELS = bucketLevels('created_at', 'tenant').filter((level) => level.level <= 2);

/** The class holding [low, …): undefined when `low` is no class's first value. */
function classStartingAt(low: number): number | undefined {
  if (low === 0) return 1;
  for (let d = 2; d <= LARGEST_CLASS; d++) if (low === 10 ** (d - 1)) return d;
  return undefined;
}

/**
 * The classes an amount range is made of exactly, its ends as integers: `low` inclusive and
 * `high` exclusive, either undefined when open; undefined when the range is not a run of whole
 * classes, or is empty.
 */
export function amountClassesOf(low: number | undefined, high: number | undefined): number[] | undefined {
  const first = low === undefined ? 0 : classStartingAt(low);
  const after = high === undefined ? LARGEST_CLASS + 1 : classStartingAt(high);
  if (first === undefined || after === undefined || after <= first) return undefined;
  return Array.from({ length: after - first }, (_, i) => first + i);
}

export interface AmountClassDelta extends SliceKey {
  sortKey: string;
  level: number;
  bucket: number;
  delta: number;
}

/** What a payment adds to (delta 1) or takes from (-1) the class counts. */
export function amountClassDeltas(p: { currency: string; created_at: string; amount: number }, delta: number): AmountClassDelta[] {
  const at = Date.parse(p.created_at);
  const sortKey = amountClassSortKey(amountClassOf(p.amount));
  return AMOUNT_CLASS_SLICES.flatMap((slice) =>
    AMOUNT_CLASS_LEVELS.map((level) => ({ ...sliceKeyOf(p, slice.dims), sortKey, level: level.level, bucket: level.of(at), delta })),
  );
}

/** The grouped `INSERT … SELECT`s that rebuild the class counts from the rows (`only`: a where clause, or nothing for every tenant). */
export function amountClassRebuildStatements(dialect: Dialect, only: RawBuilder<unknown>): Array<RawBuilder<unknown>> {
  const amountClass = amountClassSql();
  const sortKey = `'created_at.a' || ${dialect === 'postgres' ? `lpad(${amountClass}::text, 2, '0')` : `substr('0' || ${amountClass}, -2, 2)`}`;
  return AMOUNT_CLASS_SLICES.flatMap((slice) =>
    AMOUNT_CLASS_LEVELS.map((level) => {
      const byCurrency = slice.dims.includes('currency');
      return sql`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
        select tenant_id, 'payments', ${sql.raw(sortKey)}, ${sql.lit(level.level)}, '', '', ${sql.raw(byCurrency ? 'currency' : "''")}, '', ${sql.raw(level.sql(dialect))}, count(*)
        from payments ${only}
        group by tenant_id, ${sql.raw(amountClass)}, ${sql.raw(byCurrency ? 'currency, ' : '')}${sql.raw(level.sql(dialect))}`;
    }),
  );
}
