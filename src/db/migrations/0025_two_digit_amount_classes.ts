import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Two-significant-digit amount classes for the counts in two dimensions (issue 31 item 2,
 * src/lists/counters/amountClassBuckets.ts): for an amount of 2 to 11 digits whose two lead digits are
 * LM, with R = LM·10^(d-2), the class {R} when the amount is R and (R, R + 10^(d-2)) otherwise,
 * under the sort key `created_at.aDDLMF` (DD digits, F 0 for the round value, 1 above it). Beside
 * 0021's and 0022's classes, and unlike them counted on the coarse created_at levels only (16
 * days and day; on the hour they would be about a row per payment), for the whole list and per
 * currency: a create writes 16 class rows, 4 of them of this kind. Amounts below 10 or past 11
 * digits have none. Added from the payments with grouped INSERT … SELECT; the SQL is written out
 * here so that the migration stays what it was if the classes or levels ever change.
 */

const LEVEL_SECONDS = [16 * 86_400, 86_400];

export function twoDigitAmountClassesMigration(dialect: Dialect) {
  const text = 'cast(amount as text)';
  const digits = dialect === 'postgres' ? `lpad(length(${text})::text, 2, '0')` : `substr('0' || length(${text}), -2, 2)`;
  const amountClass = `(${digits} || substr(${text}, 1, 2) || case when ltrim(substr(${text}, 3), '0') = '' then '0' else '1' end)`;
  const bucket = (seconds: number) =>
    dialect === 'postgres' ? `floor(extract(epoch from created_at) / ${seconds})::bigint` : `(cast(strftime('%s', created_at) as integer) / ${seconds})`;
  // This kind's sort keys, and only theirs, are this long (0022's one shorter, 0021's three).
  const twoDigitKey = `sort_key like 'created_at.a%' and length(sort_key) = ${'created_at.a00000'.length}`;
  return {
    async up(db: Kysely<unknown>) {
      await sql.raw(`delete from list_buckets where ${twoDigitKey}`).execute(db);
      for (const byCurrency of [false, true]) {
        for (const [level, seconds] of LEVEL_SECONDS.entries()) {
          await sql
            .raw(`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
              select tenant_id, 'payments', 'created_at.a' || ${amountClass}, ${level}, '', '', ${byCurrency ? 'currency' : "''"}, '', ${bucket(seconds)}, count(*)
              from payments
              where amount >= 10 and amount < 100000000000
              group by tenant_id, ${amountClass}, ${byCurrency ? 'currency, ' : ''}${bucket(seconds)}`)
            .execute(db);
        }
      }
    },
    // Back to 0021's and 0022's classes alone.
    down: async (db: Kysely<unknown>) => {
      await sql.raw(`delete from list_buckets where ${twoDigitKey}`).execute(db);
    },
  };
}
