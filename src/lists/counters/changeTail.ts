import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from '../../db/schema.ts';
import { AMOUNT_CLASS_LEVELS, AMOUNT_CLASS_SLICES, amountClassSql, digitClassSql, TWO_DIGIT_CLASS_LEVELS, twoDigitClassSql } from './amountClassBuckets.ts';
import { BUCKETED_SLICES, DIMENSIONS, type CountedList, type Dimension } from './countedSlices.ts';
import { BUCKETED_COLUMNS, bucketLevels, type BucketLevel } from './sortBuckets.ts';

/*
 * The tail of the real-time aggregate (migration 0033): the list changes not folded yet, as the
 * rows a read adds to the counts it reads, in the same statement (one snapshot). Each mirrors what
 * the fold adds (foldChanges.ts) as the rebuilds' SQL mirrors the writes' deltas.
 */

/** Any of these values per counted dimension ([''] = all), as list_counts and list_buckets rows are read. */
export type SliceValues = Record<Dimension, readonly string[]>;

const narrowed = (slice: SliceValues) => DIMENSIONS.filter((d) => slice[d][0] !== '');

/**
 * The record sides of a tenant's unfolded changes to `list`: each record after a write (+1) and
 * before it (−1), with the columns a count or bucket of it is computed from.
 */
export function changeSidesSql(tenantId: string, list: Exclude<CountedList, 'events'>): RawBuilder<unknown> {
  // Both sides from one scan of the changes (a union of the two read them twice: decision 0101).
  const side = (column: string) => sql`case when k.sign = 1 then ${sql.ref(`c.after_${column}`)} else ${sql.ref(`c.before_${column}`)} end`;
  return sql`(select c.account_id, c.currency, c.card_brand, c.created_at, ${side('status')} as status, ${side('amount')} as amount,
      ${side('metadata')} as metadata, k.sign
      from list_changes c cross join (select 1 as sign union all select -1 as sign) k
      where c.tenant_id = ${tenantId} and c.list = ${list} and ${side('status')} is not null)`;
}

/** `dim in (values)` for every dimension the slice narrows, as a side (or an event) is tested. */
function sideMatches(slice: SliceValues, column: (d: Dimension) => string = (d) => d): RawBuilder<unknown> {
  const tests = narrowed(slice).map((d) => sql`${sql.ref(column(d))} in (${sql.join([...slice[d]])})`);
  return tests.length === 0 ? sql`true` : sql.join(tests, sql` and `);
}

/** What the tenant's unfolded changes add to a list_counts slice's total (an SQL expression). */
export function tailCountSql(dialect: Dialect, tenantId: string, list: CountedList, slice: SliceValues): RawBuilder<number> {
  if (list === 'events') {
    const types = dialect === 'postgres' ? sql`jsonb_array_elements_text(c.events) as e(type)` : sql`json_each(c.events) as e`;
    const type = dialect === 'postgres' ? 'e.type' : 'e.value';
    return sql<number>`(select count(*) from list_changes c, ${types} where c.tenant_id = ${tenantId} and ${sideMatches(slice, () => type)})`;
  }
  // One pass over the changes, each adding its sides that match: the union of both sides
  // (changeSidesSql) scans them twice, a fifth of page 1's time on PostgreSQL (decision 0101).
  const all = { account_id: [''], status: [''], currency: [''], card_brand: [''] };
  const side = (when: 'before' | 'after') =>
    sql`case when ${sql.ref(`${when}_status`)} is not null and ${sideMatches({ ...all, status: slice.status }, () => `${when}_status`)} then 1 else 0 end`;
  return sql<number>`(select coalesce(sum(${side('after')} - ${side('before')}), 0) from list_changes
    where tenant_id = ${tenantId} and list = ${list} and ${sideMatches({ ...slice, status: [''] })})`;
}

/** One kind of bucket rows a payment is counted in: a sort key (an SQL expression), its levels, and the dimensions of its slice. */
interface BucketFamily {
  sortKey: string;
  levels: readonly BucketLevel[];
  dims: readonly Dimension[];
  /** The class sort keys (amount classes): only those a read names are its rows. */
  classes: boolean;
}

function bucketFamilies(dialect: Dialect): BucketFamily[] {
  const columns = BUCKETED_COLUMNS.flatMap((column) =>
    BUCKETED_SLICES.map((s) => ({ sortKey: `'${column}'`, levels: bucketLevels(column, s.kind), dims: s.dims, classes: false })),
  );
  const kinds = [
    { cls: digitClassSql(dialect), levels: AMOUNT_CLASS_LEVELS },
    { cls: amountClassSql(dialect), levels: AMOUNT_CLASS_LEVELS },
    { cls: twoDigitClassSql(dialect), levels: TWO_DIGIT_CLASS_LEVELS },
  ];
  const classes = kinds.flatMap((k) =>
    AMOUNT_CLASS_SLICES.map((s) => ({
      sortKey: `('created_at.a' || ${k.cls})`,
      levels: s.dims.includes('currency') ? TWO_DIGIT_CLASS_LEVELS : k.levels,
      dims: s.dims,
      classes: true,
    })),
  );
  return [...columns, ...classes];
}

const sameDims = (a: readonly Dimension[], b: readonly Dimension[]) => a.length === b.length && a.every((d) => b.includes(d));

/**
 * The unfolded changes' rows of the list_buckets of `sortKeys` at `level` in `slice`: `sort_key,
 * bucket, n` (n: +1 or −1 per record side), or undefined when no such buckets are kept.
 */
export function tailBucketRows(
  dialect: Dialect,
  tenantId: string,
  sortKeys: readonly string[],
  level: number,
  slice: SliceValues,
): RawBuilder<unknown> | undefined {
  const dims = narrowed(slice);
  const branches = bucketFamilies(dialect).flatMap((f) => {
    const at = f.levels.find((l) => l.level === level);
    if (!at || !sameDims(f.dims, dims)) return [];
    if (!f.classes && !sortKeys.includes(f.sortKey.slice(1, -1))) return [];
    const keys = sortKeys.filter((k) => k.startsWith('created_at.a'));
    if (f.classes && keys.length === 0) return [];
    const inKeys = f.classes ? sql` and ${sql.raw(f.sortKey)} in (${sql.join(keys)})` : sql``;
    return [
      sql`select ${sql.raw(f.sortKey)} as sort_key, ${sql.raw(at.sql(dialect))} as bucket, sign as n from ${changeSidesSql(tenantId, 'payments')} s
        where ${sideMatches(slice)}${inKeys}`,
    ];
  });
  return branches.length === 0 ? undefined : sql.join(branches, sql` union all `);
}

/**
 * The list_buckets rows of `sortKeys` (a column, or amount classes' keys) at `level` in `slice`, the unfolded changes' added: `sort_key,
 * bucket, n` rows to sum (a bucket may come more than once). `bucketTest` bounds the buckets
 * (an SQL test of `bucket`), inside each part so that an index range reads only those.
 */
export function liveBucketRows(
  dialect: Dialect,
  tenantId: string,
  sortKeys: string | readonly string[],
  level: number,
  slice: SliceValues,
  bucketTest: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  // A column's own buckets: its name a parameter; classes: part of the statement's shape (its template key).
  const keyTest = typeof sortKeys === 'string' ? sql`sort_key = ${sortKeys}` : sql`sort_key in (${sql.join(sortKeys.map((k) => sql.lit(k)))})`;
  const dimTests = sql.join(
    DIMENSIONS.map((d) => sql`${sql.ref(d)} in (${sql.join([...slice[d]])})`),
    sql` and `,
  );
  const kept = sql`select sort_key, bucket, n from list_buckets
    where tenant_id = ${tenantId} and list = 'payments' and ${keyTest} and level = ${sql.lit(level)} and ${dimTests} and ${bucketTest}`;
  const tail = tailBucketRows(dialect, tenantId, typeof sortKeys === 'string' ? [sortKeys] : sortKeys, level, slice);
  return tail ? sql`(${kept} union all select sort_key, bucket, n from (${tail}) t where ${bucketTest})` : sql`(${kept})`;
}
