import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Fewer bucket levels, so that the counter rows stay under one per payment
 * (docs/decisions/0041-coarser-counter-levels.md): the whole tenant's slices stop at the hour and
 * three leading digits (their 5-minute and 4-digit buckets go), one account's slices at 16 days
 * and one digit, one currency's amount classes at the day. What is left is exact as it was: every
 * level is counted on its own, so dropping one leaves the others untouched.
 */
export function coarserCounterLevelsMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await sql`delete from list_buckets where sort_key in ('created_at', 'amount') and level = 3`.execute(db);
      await sql`delete from list_buckets where account_id <> '' and sort_key in ('created_at', 'amount') and level >= 1`.execute(db);
      await sql`delete from list_buckets where sort_key like 'created_at.a%' and currency <> '' and level = 2`.execute(db);
    },
  };
}
