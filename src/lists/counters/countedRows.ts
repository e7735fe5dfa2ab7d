import { sql, type RawBuilder } from 'kysely';
import { sqliteRowsUpsert } from './sqliteRowsUpsert.ts';
import type { Write } from '../../db/writeTransaction.ts';
import { countRows, type CountDelta } from './listCounts.ts';
import { bucketRows, type BucketDelta } from './listBuckets.ts';
import { adjustValueCounts, valueCountRows, valueCountUpsert, type MetadataList, type ValueCountDelta } from './metadataValueCounts.ts';

/** A write's metadata entries added and removed, for metadata_value_counts. */
export interface ValueCountWrite {
  list: MetadataList;
  deltas: ValueCountDelta[];
}

/**
 * Adds a write's count, bucket and value count deltas to its shard's rows as its last statement before the commit:
 * every writer of a tenant locks these rows, so each holds them one round trip and the commit (decision 0016). On
 * PostgreSQL one statement of chained CTEs locks counts, buckets, then value counts, each in mergeDeltas' order, so
 * writers cannot deadlock; one array per column keeps its text fixed, prepared once (decision 0006). SQLite: one
 * JSON-array upsert per table (sqliteRowsUpsert.ts; a statement there is a function call, not a round trip).
 */
export async function writeCountedRows(write: Write, tenantId: string, counts: CountDelta[], buckets: BucketDelta[], values?: ValueCountWrite): Promise<void> {
  const { trx, shard } = write;
  if (write.dialect === 'sqlite') {
    const counted = [
      ['list_counts', countRows(tenantId, counts, shard)],
      ['list_buckets', bucketRows(tenantId, buckets, shard)],
    ] as const;
    for (const [table, rows] of counted) if (rows.length > 0) await sqliteRowsUpsert<{ n: number }>(table, rows).execute(trx);
    if (values) await adjustValueCounts(write, tenantId, values.list, values.deltas);
    return;
  }
  const c = countRows(tenantId, counts, shard);
  const b = bucketRows(tenantId, buckets, shard);
  const column = <R, K extends keyof R>(rows: R[], key: K) => rows.map((r) => r[key]);
  const v = values ? valueCountRows(tenantId, values.list, values.deltas, shard) : [];
  const countUpsert = (after: RawBuilder<unknown>) => sql`insert into list_counts (tenant_id, list, account_id, status, currency, card_brand, shard, n)
    select ${tenantId}, * from unnest(${column(c, 'list')}::text[], ${column(c, 'account_id')}::text[], ${column(c, 'status')}::text[],
      ${column(c, 'currency')}::text[], ${column(c, 'card_brand')}::text[], ${column(c, 'shard')}::smallint[], ${column(c, 'n')}::bigint[])
    where ${after}
    on conflict (tenant_id, list, account_id, status, currency, card_brand, shard) do update set n = list_counts.n + excluded.n`;
  const bucketUpsert = (
    after: RawBuilder<unknown>,
  ) => sql`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, shard, n)
    select ${tenantId}, * from unnest(${column(b, 'list')}::text[], ${column(b, 'sort_key')}::text[], ${column(b, 'level')}::int[],
      ${column(b, 'account_id')}::text[], ${column(b, 'status')}::text[], ${column(b, 'currency')}::text[], ${column(b, 'card_brand')}::text[],
      ${column(b, 'bucket')}::bigint[], ${column(b, 'shard')}::smallint[], ${column(b, 'n')}::bigint[])
    where ${after}
    on conflict (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, shard) do update set n = list_buckets.n + excluded.n`;
  const upserts = [
    ...(c.length > 0 ? [countUpsert] : []),
    ...(b.length > 0 ? [bucketUpsert] : []),
    ...(values && v.length > 0 ? [(after: RawBuilder<unknown>) => valueCountUpsert(tenantId, values.list, v, after)] : []),
  ];
  if (upserts.length > 0) await chained(upserts).execute(trx);
}

/** One statement running the upserts in order: each but the last a data-modifying CTE that the next waits for. */
function chained(upserts: Array<(after: RawBuilder<unknown>) => RawBuilder<unknown>>): RawBuilder<unknown> {
  const waits = (i: number) => (i === 0 ? sql`true` : sql`(select count(*) from ${sql.raw(`u${i - 1}`)}) >= 0`);
  const last = upserts.length - 1;
  if (last === 0) return upserts[0](sql`true`);
  const ctes = upserts.slice(0, last).map((upsert, i) => sql`${sql.raw(`u${i}`)} as (${upsert(waits(i))} returning 1)`);
  return sql`with ${sql.join(ctes)} ${upserts[last](waits(last))}`;
}
