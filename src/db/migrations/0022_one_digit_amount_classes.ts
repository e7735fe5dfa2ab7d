import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Finer amount classes for the counts in two dimensions (issue 31 item 2,
 * src/lists/counters/amountClassBuckets.ts): 0021 counted an amount's number of digits; a class is now
 * one significant digit wide with the round values as classes of their own ({R} and
 * (R, (L+1)·10^(d-1)) for R = L·10^(d-1)), {0}, one class for every negative amount, and a class
 * per number of digits past 11 digits. They are counted beside 0021's (which a range of powers
 * of ten keeps reading: fewer keys), so a create writes 12 class rows, 6 of each kind. The
 * `created_at.aDDLF` rows (DD digits, L lead digit, F 0 for the round value, 1 above it) are
 * added from the payments with grouped INSERT … SELECT; 0021's `created_at.aNN` rows stay.
 * The SQL is written out here (as 0021's is) so that the migration stays what it was if the
 * classes or levels ever change.
 */

const LEVEL_SECONDS = [16 * 86_400, 86_400, 3_600];

export function oneDigitAmountClassesMigration(dialect: Dialect) {
  const text = 'cast(amount as text)';
  const digits = dialect === 'postgres' ? `lpad(length(${text})::text, 2, '0')` : `substr('0' || length(${text}), -2, 2)`;
  const amountClass = `(case when amount < 0 then '0000' when length(${text}) > 11 then ${digits} || '00'
    else ${digits} || substr(${text}, 1, 1) || case when ltrim(substr(${text}, 2), '0') = '' then '0' else '1' end end)`;
  const bucket = (seconds: number) =>
    dialect === 'postgres' ? `floor(extract(epoch from created_at) / ${seconds})::bigint` : `(cast(strftime('%s', created_at) as integer) / ${seconds})`;
  // The finer classes' sort keys, and only theirs, are this long (0021's `created_at.aNN` two shorter).
  const finerKey = `sort_key like 'created_at.a%' and length(sort_key) = ${'created_at.a0000'.length}`;
  const add = async (db: Kysely<unknown>, sortKey: string, classSql: string) => {
    for (const byCurrency of [false, true]) {
      for (const [level, seconds] of LEVEL_SECONDS.entries()) {
        await sql
          .raw(`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, currency, card_brand, bucket, n)
            select tenant_id, 'payments', ${sortKey}, ${level}, '', '', ${byCurrency ? 'currency' : "''"}, '', ${bucket(seconds)}, count(*)
            from payments
            group by tenant_id, ${classSql}, ${byCurrency ? 'currency, ' : ''}${bucket(seconds)}`)
          .execute(db);
      }
    }
  };
  return {
    async up(db: Kysely<unknown>) {
      await sql.raw(`delete from list_buckets where ${finerKey}`).execute(db);
      await add(db, `'created_at.a' || ${amountClass}`, amountClass);
    },
    // Back to 0021's classes alone.
    down: async (db: Kysely<unknown>) => {
      await sql.raw(`delete from list_buckets where ${finerKey}`).execute(db);
    },
  };
}
