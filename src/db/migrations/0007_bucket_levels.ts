import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Bucket counts with levels of a few children each (src/lists/counters/sortBuckets.ts): created_at by
 * 16 days, days, hours and 5 minutes (one account: 16 days and days), amount by its 1 to 4
 * leading digits (one account: 1 and 2). Rebuilt whole from the rows: what 0006 kept (days and
 * hours) no longer matches. The bucket arithmetic is written out here as it stood when this
 * migration was made, not imported: a migration must keep meaning what it meant.
 */

const DAY = 86_400;

export function timeBucket(seconds: number, dialect: Dialect): string {
  return dialect === 'postgres' ? `floor(extract(epoch from created_at) / ${seconds})::bigint` : `(cast(strftime('%s', created_at) as integer) / ${seconds})`;
}

/** Amounts by their leading `digits` digits: below 10^digits the amount itself, above e·10^digits + ⌊amount / 10^e⌋. */
export function amountBucket(digits: number): string {
  const base = 10 ** digits;
  const branches = [`when amount < ${base} then amount`];
  for (let e = 1; digits + e <= 16; e++) branches.push(`when amount < ${10 ** (digits + e)} then ${e * base} + amount / ${10 ** e}`);
  return `(case ${branches.join(' ')} end)`;
}

const LEVELS = {
  created_at: {
    tenant: [16 * DAY, DAY, 3_600, 300],
    account: [16 * DAY, DAY],
  },
  amount: {
    tenant: [1, 2, 3, 4],
    account: [1, 2],
  },
} as const;

const SLICES = [
  { kind: 'tenant', account: "''", status: "''", groups: [] as string[] },
  { kind: 'tenant', account: "''", status: 'status', groups: ['status'] },
  { kind: 'account', account: 'account_id', status: "''", groups: ['account_id'] },
] as const;

export function bucketLevelsMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await sql`delete from list_buckets`.execute(db);
      for (const slice of SLICES) {
        for (const [sortKey, kinds] of Object.entries(LEVELS)) {
          for (const [level, width] of kinds[slice.kind].entries()) {
            const bucket = sortKey === 'created_at' ? timeBucket(width, dialect) : amountBucket(width);
            await sql`insert into list_buckets (tenant_id, list, sort_key, level, account_id, status, bucket, n)
              select tenant_id, 'payments', ${sql.lit(sortKey)}, ${sql.lit(level)}, ${sql.raw(slice.account)}, ${sql.raw(slice.status)}, ${sql.raw(bucket)}, count(*)
              from payments
              group by ${sql.raw(['tenant_id', ...slice.groups, bucket].join(', '))}`.execute(db);
          }
        }
      }
    },
  };
}
