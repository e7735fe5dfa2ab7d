import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { bucketLevels, childBuckets, type BucketedColumn, type SliceKind } from '../counts/sortBuckets.ts';
import type { BucketStart } from './listPageQueries.ts';
import type { ListSlice } from './listSlice.ts';

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
