import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/**
 * Whether `payments` holds at most `limit` rows, for choosing how a seed loads (seedTenant.ts): a choice
 * of speed, never of rows. SQLite counts at most `limit + 1` rows; PostgreSQL asks the planner's
 * estimate, as a count would be the seed's one statement naming no tenant (every shard on Citus).
 * A table never analyzed is taken as too large, so the load goes in batches.
 */
export async function paymentsHoldAtMost(db: Db, limit: number): Promise<boolean> {
  if (db.dialect === 'sqlite') {
    const { n } = await db.kysely
      .selectFrom((eb) =>
        eb
          .selectFrom('payments')
          .select('id')
          .limit(limit + 1)
          .as('some'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n) <= limit;
  }
  const { rows } = await sql<{ tuples: number; pages: number; now: number }>`select c.reltuples::float8 as tuples, c.relpages as pages,
      (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as now
    from pg_class c where c.oid = 'payments'::regclass`.execute(db.kysely);
  const { tuples, pages, now } = rows[0]!;
  if (Number(now) === 0) return true;
  if (Number(tuples) < 0 || Number(pages) === 0) return false;
  return (Number(tuples) / Number(pages)) * Number(now) <= limit;
}
