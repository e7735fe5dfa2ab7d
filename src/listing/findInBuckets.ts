import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.ts';
import { bucketLevels, childBuckets, type BucketedColumn, type SliceKind } from '../counts/sortBuckets.ts';
import type { BucketStart } from './listPageQueries.ts';
import type { ListSlice } from './listSlice.ts';
import { PREPARED } from '../db/preparedStatements.ts';

export interface BucketSearch {
  tenantId: string;
  slice: ListSlice;
  kind: SliceKind;
  column: BucketedColumn;
  direction: 'asc' | 'desc';
  /** Rows to skip from the start of the list, in `direction`. */
  skip: number;
}

/** The counts of one level's buckets of a slice, in list order (only `children`, when given). */
export function bucketCountsSelect(db: Kysely<Database>, search: Omit<BucketSearch, 'skip' | 'kind'>, level: number, children?: [number, number]) {
  let query = db
    .selectFrom('list_buckets')
    .select(['bucket', sql<number | string>`sum(n)`.as('n')])
    .where('tenant_id', '=', search.tenantId)
    .where('list', '=', 'payments')
    .where('sort_key', '=', search.column)
    .where('level', '=', level)
    .where('account_id', 'in', search.slice.accounts)
    .where('status', 'in', search.slice.statuses);
  if (children) query = query.where('bucket', '>=', children[0]).where('bucket', '<=', children[1]);
  return query.groupBy('bucket').orderBy('bucket', search.direction);
}

/**
 * Where the row `skip` rows into a list sits: the start of the bucket that holds it, and how
 * many rows of the list come before it from that start. Reads the coarse level's counts, then
 * only the children of the chosen bucket on each finer level. Run it in the same snapshot as the
 * page it places; undefined if the counts end before `skip` (they cannot, in one snapshot).
 */
export async function findInBuckets(db: Kysely<Database>, search: BucketSearch): Promise<{ start: BucketStart; skip: number } | undefined> {
  const levels = bucketLevels(search.column, search.kind);
  let skip = search.skip;
  let children: [number, number] | undefined;
  let chosen: number | undefined;
  for (const [i, level] of levels.entries()) {
    const buckets = await bucketCountsSelect(db, search, level.level, children).execute();
    chosen = undefined;
    for (const b of buckets) {
      const n = Number(b.n);
      if (skip < n) {
        chosen = Number(b.bucket);
        break;
      }
      skip -= n;
    }
    if (chosen === undefined) return undefined;
    if (i + 1 < levels.length) children = childBuckets(level, levels[i + 1], chosen);
  }
  const finest = levels[levels.length - 1];
  const bound = search.direction === 'asc' ? finest.low(chosen!) : finest.high(chosen!);
  const value = search.column === 'created_at' ? new Date(bound).toISOString() : bound;
  return { start: { column: search.column, op: search.direction === 'asc' ? '>=' : '<', value }, skip };
}

/**
 * PostgreSQL: the whole of a deep page of a bucketed list as one statement (so one snapshot,
 * one round trip, no transaction): the total, the bucket descent level by level (each level's
 * counts summed in list order by a window, the bucket holding row `offset` picked, only its
 * children read on the next level), and `limit` rows skipped into the last bucket found.
 * Past the end no bucket is picked and no row is read.
 */
export function bucketPageStatement(
  search: Omit<BucketSearch, 'skip'>,
  total: Expression<unknown>,
  page: (start: BucketStart, skip: RawBuilder<number>) => { ctes: RawBuilder<unknown>[]; rows: Expression<unknown> },
  offset: number,
) {
  const levels = bucketLevels(search.column, search.kind);
  const dir = sql.raw(search.direction);
  const ctes: RawBuilder<unknown>[] = [sql`t as (${total})`];
  for (const [i, level] of levels.entries()) {
    const [l, c, p, prev] = [`l${i}`, `c${i}`, `p${i}`, `p${i - 1}`].map((name) => sql.raw(name));
    const children = i === 0 ? sql`` : sql`and bucket between (select lo from ${prev}) and (select hi from ${prev})`;
    const before = i === 0 ? sql`0` : sql`(select before from ${prev})`;
    const [lo, hi] = i + 1 < levels.length ? levels[i].childrenSql('bucket') : ['null', 'null'];
    ctes.push(sql`${l} as (select bucket, sum(n) as n from list_buckets
      where tenant_id = ${search.tenantId} and list = 'payments' and sort_key = ${search.column} and level = ${level.level}
        and account_id in (${sql.join(search.slice.accounts)}) and status in (${sql.join(search.slice.statuses)}) ${children}
      group by bucket)`);
    ctes.push(sql`${c} as (select bucket, n, ${before} + sum(n) over (order by bucket ${dir}) - n as before from ${l})`);
    ctes.push(sql`${p} as (select bucket, before, ${sql.raw(lo)} as lo, ${sql.raw(hi)} as hi from ${c}
      where before <= ${offset} and before + n > ${offset} order by bucket ${dir} limit 1)`);
  }
  const last = sql.raw(`p${levels.length - 1}`);
  const finest = levels[levels.length - 1];
  const bound = search.direction === 'asc' ? finest.lowSql('bucket') : finest.highSql('bucket');
  const start: BucketStart = { column: search.column, op: search.direction === 'asc' ? '>=' : '<', value: sql`(select ${sql.raw(bound)} from ${last})` };
  const skip = sql<number>`(select (${offset} - before)::bigint from ${last})`;
  const { ctes: pageCtes, rows } = page(start, skip);
  return sql<{ total: number | string; resource: string | null }>`${sql.raw(PREPARED)}with ${sql.join([...ctes, ...pageCtes])}
    select t.n as total, p.resource from t left join lateral (${rows}) as p on true`;
}
