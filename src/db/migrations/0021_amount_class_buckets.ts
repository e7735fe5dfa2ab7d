import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Counts in two dimensions (issue 31 item 2, src/lists/counters/amountClassBuckets.ts): the payments'
 * created_at buckets per amount class (its number of digits, 0 for a negative amount), for the
 * whole list and per currency, on the created_at tenant levels down to the hour (16 days, day, hour),
 * as list_buckets rows with the sort key `created_at.aNN`. No new table or column: they are
 * counted from the rows already there. The SQL is written out here (as 0007's is) so that the
 * migration stays what it was if the levels ever change.
 */

const LEVEL_SECONDS = [16 * 86_400, 86_400, 3_600];

export function amountClassBucketsMigration(dialect: Dialect) {
  const amountClass = '(case when amount < 0 then 0 else length(cast(amount as text)) end)';
  const sortKey = `'created_at.a' || ${dialect === 'postgres' ? `lpad(${amountClass}::text, 2, '0')` : `substr('0' || ${amountClass}, -2, 2)`}`;
  const bucket = (seconds: number) =>
    dialect === 'postgres' ? `floor(extract(epoch from created_at) / ${seconds})::bigint` : `(cast(strftime('%s', created_at) as integer) / ${seconds})`;
  return {
    async up(db: Kysely<unknown>) {
      for (const byCurrency of [false, true]) {
        for (const [level, seconds] of LEVEL_SECONDS.entries()) {
          await sql
            .raw(`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
              select tenant_id, 'payments', ${sortKey}, ${level}, '', '', ${byCurrency ? 'currency' : "''"}, '', ${bucket(seconds)}, count(*)
              from payments
              group by tenant_id, ${amountClass}, ${byCurrency ? 'currency, ' : ''}${bucket(seconds)}`)
            .execute(db);
        }
      }
    },
    async down(db: Kysely<unknown>) {
      // Only these sort keys are longer than `created_at` and start with it.
      await sql.raw(`delete from list_buckets where sort_key like 'created_at.a%'`).execute(db);
    },
  };
}
