/**
 * Buckets of a sort key: contiguous ranges of its values counted per list slice (list_buckets), so the row at any
 * offset is found by summing a few counts and skipping inside one small bucket, exact because writes change the
 * counts in their own transactions (decision 0003). Levels nest, so a search reads the coarse level whole, then
 * only the children of the bucket it chose. Pure: no I/O.
 */
export type BucketedColumn = 'created_at' | 'amount';

/**
 * How finely a slice's buckets go (fewer rows to keep the coarser): the whole tenant's slices to the
 * hour and three leading digits; the pairs of dimensions (countedSlices.ts) to the day and two; one
 * account's (about a thousandth of the rows) to 16 days and one.
 */
export type SliceKind = 'tenant' | 'pair' | 'account';

export interface BucketLevel {
  level: number;
  /** The bucket of a value (created_at as epoch ms). Monotonic: a larger value never gets a smaller bucket. */
  of(value: number): number;
  /** The smallest value in a bucket. */
  low(bucket: number): number;
  /** The smallest value past a bucket. */
  high(bucket: number): number;
  /** The same bucket as SQL, for rebuilding counts from rows. */
  sql(dialect: SqlDialect): string;
  /** `low` and `high` of the bucket number `b` (an SQL expression), in the column's stored type and form. */
  lowSql(b: string, dialect: SqlDialect): string;
  highSql(b: string, dialect: SqlDialect): string;
  /** The first and last child on the next level of the bucket number `b`, as SQL (the same on both dialects). */
  childrenSql(b: string): [string, string];
}

type SqlDialect = 'sqlite' | 'postgres';

/** An instant `seconds` (SQL) after the epoch as the column stores it: timestamptz, or SQLite's RFC 3339 text with milliseconds. */
function instantSql(seconds: string, dialect: SqlDialect): string {
  return dialect === 'postgres' ? `to_timestamp(${seconds})` : `strftime('%Y-%m-%dT%H:%M:%fZ', ${seconds}, 'unixepoch')`;
}

function timeLevel(level: number, seconds: number, childSeconds?: number): BucketLevel {
  const width = seconds * 1000;
  const per = childSeconds ? seconds / childSeconds : 1;
  return {
    level,
    of: (ms) => Math.floor(ms / width),
    low: (bucket) => bucket * width,
    high: (bucket) => (bucket + 1) * width,
    // Whole seconds are enough: every width is a whole number of seconds.
    sql: (dialect) =>
      dialect === 'postgres' ? `floor(extract(epoch from created_at) / ${seconds})::bigint` : `(cast(strftime('%s', created_at) as integer) / ${seconds})`,
    lowSql: (b, dialect) => instantSql(`cast(${b} as bigint) * ${seconds}`, dialect),
    highSql: (b, dialect) => instantSql(`(cast(${b} as bigint) + 1) * ${seconds}`, dialect),
    childrenSql: (b) => [`cast(${b} as bigint) * ${per}`, `cast(${b} as bigint) * ${per} + ${per - 1}`],
  };
}

const POW10 = Array.from({ length: 17 }, (_, i) => 10 ** i);

/** 10^e for an integer SQL expression 0 ≤ e ≤ 16, exact on both dialects (SQLite may lack power()). */
function pow10Sql(e: string): string {
  return `(case ${e} ${POW10.map((p, i) => `when ${i} then ${p}`).join(' ')} end)`;
}

/**
 * Amounts by their leading `digits` significant digits: amounts span orders of magnitude
 * (cents to millions), so equal-width buckets would put most rows in the first one. Below
 * 10^digits a bucket is one amount; above, bucket = e·10^digits + ⌊amount / 10^e⌋.
 */
function amountLevel(level: number, digits: number): BucketLevel {
  const base = POW10[digits];
  const exponentOf = (amount: number) => Math.max(0, String(Math.trunc(amount)).length - digits);
  return {
    level,
    of(amount) {
      const e = exponentOf(amount);
      return e === 0 ? amount : e * base + Math.floor(amount / POW10[e]);
    },
    low(bucket) {
      if (bucket < base) return bucket;
      const e = Math.floor(bucket / base);
      return (bucket % base) * POW10[e];
    },
    high(bucket) {
      if (bucket < base) return bucket + 1;
      const e = Math.floor(bucket / base);
      return ((bucket % base) + 1) * POW10[e];
    },
    sql() {
      const branches = [`when amount < ${base} then amount`];
      for (let e = 1; digits + e <= 16; e++) branches.push(`when amount < ${POW10[digits + e]} then ${e * base} + amount / ${POW10[e]}`);
      return `(case ${branches.join(' ')} end)`;
    },
    lowSql: (b) => `(case when ${b} < ${base} then ${b} else (${b} % ${base}) * ${pow10Sql(`${b} / ${base}`)} end)`,
    highSql: (b) => `(case when ${b} < ${base} then ${b} + 1 else (${b} % ${base} + 1) * ${pow10Sql(`${b} / ${base}`)} end)`,
    // One more digit: a bucket's ten children have one exponent less and leads lead·10 … lead·10+9.
    childrenSql(b) {
      const first = `(case when ${b} < ${base} then ${b} else (${b} / ${base} - 1) * ${base * 10} + (${b} % ${base}) * 10 end)`;
      return [first, `(${first} + case when ${b} < ${base} then 0 else 9 end)`];
    },
  };
}

const DAY = 86_400;

/**
 * Every level's buckets split into a few children (16 days → days → hours; one more leading
 * digit): a search sums only a few dozen counts per level, and the rows left to skip inside the
 * finest bucket stay few (an hour's: ~230 at 1M payments over six months). Coarser for smaller
 * slices, so that the counter rows stay under one per payment
 * (docs/decisions/0041-coarser-counter-levels.md). Changing a level means a migration.
 */
const LEVELS: Record<BucketedColumn, Record<SliceKind, BucketLevel[]>> = {
  created_at: {
    tenant: [timeLevel(0, 16 * DAY, DAY), timeLevel(1, DAY, 3_600), timeLevel(2, 3_600)],
    pair: [timeLevel(0, 16 * DAY, DAY), timeLevel(1, DAY)],
    account: [timeLevel(0, 16 * DAY)],
  },
  amount: {
    tenant: [amountLevel(0, 1), amountLevel(1, 2), amountLevel(2, 3)],
    pair: [amountLevel(0, 1), amountLevel(1, 2)],
    account: [amountLevel(0, 1)],
  },
};

export const BUCKETED_COLUMNS = Object.keys(LEVELS) as BucketedColumn[];

export function isBucketed(column: string): column is BucketedColumn {
  return column in LEVELS;
}

export function bucketLevels(column: BucketedColumn, kind: SliceKind): BucketLevel[] {
  return LEVELS[column][kind];
}

/** The children of `bucket` (at `parent`) on the next level: an inclusive range of bucket numbers. */
export function childBuckets(parent: BucketLevel, child: BucketLevel, bucket: number): [number, number] {
  return [child.of(parent.low(bucket)), child.of(parent.high(bucket) - 1)];
}
