import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';
import { amountBucket, timeBucket } from './0007_bucket_levels.ts';

/*
 * Bucket counts for the pairs of status, currency and card brand (issue 31 item 1,
 * src/lists/counters/countedSlices.ts BUCKETED_SLICES): a list narrowed by two of them beside a created_at
 * or amount range is totalled and placed from these, as a single dimension's is. The coarse
 * levels of both bucketed columns, as one account's slices keep (created_at by 16 days and day;
 * amount by its 1 and 2 leading digits: the fine ones cost a create twice the rows and 3.1M more
 * bucket rows at 1M payments, docs/performance.md), counted from the payments already there with grouped INSERT … SELECT.
 * The bucket arithmetic is 0007's, written out there; no amount classes (they stay kept for the
 * whole list and one currency only).
 */

const DAY = 86_400;
const LEVELS = { created_at: [16 * DAY, DAY], amount: [1, 2] } as const;
const PAIRS = [
  ['status', 'currency'],
  ['status', 'card_brand'],
  ['currency', 'card_brand'],
] as const;
const DIMENSIONS = ['account_id', 'status', 'currency', 'card_brand'] as const;

/** The list_buckets rows of one pair: every dimension but the pair's '' (all). */
function pairRows(pair: readonly string[]): string {
  return DIMENSIONS.map((d) => (pair.includes(d) ? `${d} <> ''` : `${d} = ''`)).join(' and ');
}

export function pairBucketsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      for (const pair of PAIRS) {
        // A database written by this code before the migration ran (none should be) holds no rows of the pair: start from none.
        await sql.raw(`delete from list_buckets where list = 'payments' and sort_key in ('created_at', 'amount') and ${pairRows(pair)}`).execute(db);
        for (const [sortKey, widths] of Object.entries(LEVELS)) {
          for (const [level, width] of widths.entries()) {
            const bucket = sortKey === 'created_at' ? timeBucket(width, dialect) : amountBucket(width);
            const values = DIMENSIONS.map((d) => ((pair as readonly string[]).includes(d) ? d : "''"));
            await sql
              .raw(`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
              select tenant_id, 'payments', '${sortKey}', ${level}, ${values.join(', ')}, ${bucket}, count(*)
              from payments group by ${['tenant_id', ...pair, bucket].join(', ')}`)
              .execute(db);
          }
        }
      }
    },
    // Back to the whole list and single dimensions alone.
    async down(db: Kysely<unknown>) {
      for (const pair of PAIRS)
        await sql.raw(`delete from list_buckets where list = 'payments' and sort_key in ('created_at', 'amount') and ${pairRows(pair)}`).execute(db);
    },
  };
}
