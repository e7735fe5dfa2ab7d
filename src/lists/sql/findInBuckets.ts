import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Dialect } from '../../db/schema.ts';
import { amountClassLevelsOf } from '../counters/amountClassBuckets.ts';
import { bucketLevels, type BucketLevel } from '../counters/sortBuckets.ts';
import type { BucketStart } from './listPageQueries.ts';
import { liveBucketRows } from '../counters/changeTail.ts';
import type { BucketSearch } from '../plan/bucketSearch.ts';

/** The signed rows of a search's slivers per bucket of `finest` (a select of `created_at`, one instant in the bucket, and `n`). */
export type SliverRows = (finest: BucketLevel) => Expression<unknown>;

/**
 * A named common table expression of the statement that places a page: a select builder, or
 * SQL text in parentheses (either then reads the same after `name as` in SQL text and in
 * Kysely's `with`).
 */
export interface NamedCte {
  name: string;
  expression: Expression<unknown>;
}

/**
 * The bucket descent that places row `offset` of a list, as CTEs of the very statement that reads the page, so the
 * counts and rows are one snapshot and one round trip (decision 0003): level by level a window sums the counts in
 * list order, picks the bucket holding the row, and reads only its children next. Out come the finest bucket's
 * start and the rows to skip from it; past the end both are null and the page reads no row.
 */
export function bucketDescent(
  search: BucketSearch,
  total: Expression<unknown>,
  at: number,
  dialect: Dialect,
  before?: Expression<unknown>,
  sliverRows?: SliverRows,
) {
  // Summing two-significant-digit classes, the descent stops at the day (they are not counted on the hour) and the page skips the rest of it row by row.
  const levels = search.sortKeys ? amountClassLevelsOf(search.sortKeys, search.slice.currency[0] !== '') : bucketLevels(search.column, search.kind);
  const dir = sql.raw(search.direction);
  const ctes: NamedCte[] = [{ name: 't', expression: total }];
  // A ranged list's row `at` is row (rows of the slice before the range) + `at` of the slice.
  if (before) ctes.push({ name: 'rb', expression: before });
  const offset = before ? sql`((select n from rb) + ${at})` : sql`${at}`;
  // The classes are part of the statement's shape (its template key), not parameters.
  const keys = search.sortKeys && (search.subtractKeys ? [search.column, ...search.sortKeys] : search.sortKeys);
  const n = search.subtractKeys ? sql`sum(case when sort_key = ${sql.lit(search.column)} then n else -n end)` : sql`sum(n)`;
  // The slivers' rows per finest bucket, read once (a common table expression read on every level is materialized).
  const slivers = sliverRows && search.slivers?.length ? sliverRows(levels[levels.length - 1]) : undefined;
  if (slivers) ctes.push({ name: 'sv', expression: slivers });
  for (const [i, level] of levels.entries()) {
    const [l, c, prev] = [`l${i}`, `c${i}`, `p${i - 1}`].map((name) => sql.raw(name));
    const children = i === 0 ? sql`` : sql`and bucket between (select lo from ${prev}) and (select hi from ${prev})`;
    const before = i === 0 ? sql`0` : sql`(select before from ${prev})`;
    const [lo, hi] = i + 1 < levels.length ? levels[i].childrenSql('bucket') : ['null', 'null'];
    // The kept counts and the changes not folded yet (changeTail.ts), in this statement's snapshot.
    const rows = liveBucketRows(dialect, search.tenantId, keys ?? search.column, level.level, search.slice, sql`true ${children}`);
    const classes = sql`select bucket, ${n} as n from ${rows} as b group by bucket`;
    // With slivers: their rows per bucket of this level (every finest bucket lies in one) added to the classes' counts.
    const counted = slivers
      ? sql`select bucket, sum(n) as n from (${classes}
      union all
      select ${sql.raw(level.sql(dialect))} as bucket, n from sv) as u
      where true ${children}
      group by bucket`
      : classes;
    ctes.push({ name: `l${i}`, expression: sql`(${counted})` });
    ctes.push({ name: `c${i}`, expression: sql`(select bucket, n, ${before} + sum(n) over (order by bucket ${dir}) - n as before from ${l})` });
    ctes.push({
      name: `p${i}`,
      expression: sql`(select bucket, before, ${sql.raw(lo)} as lo, ${sql.raw(hi)} as hi from ${c}
      where before <= ${offset} and before + n > ${offset} order by bucket ${dir} limit 1)`,
    });
  }
  const last = sql.raw(`p${levels.length - 1}`);
  const finest = levels[levels.length - 1];
  const bound = search.direction === 'asc' ? finest.lowSql('bucket', dialect) : finest.highSql('bucket', dialect);
  const start: BucketStart = { column: search.column, op: search.direction === 'asc' ? '>=' : '<', value: sql`(select ${sql.raw(bound)} from ${last})` };
  // Past the end the skip is 0 (SQLite refuses a null OFFSET); the null start then matches no row.
  const skip = sql<number>`coalesce((select cast(${offset} - before as bigint) from ${last}), 0)`;
  return { ctes, start, skip };
}

/** `name as (expression), …` for a statement written as SQL text. */
export function withClause(ctes: NamedCte[]): RawBuilder<unknown> {
  return sql.join(ctes.map((cte) => sql`${sql.raw(cte.name)} as ${cte.expression}`));
}
