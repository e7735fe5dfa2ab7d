import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/**
 * Whether `payments` holds at most `limit` rows, for choosing how a seed loads (seedTenant.ts):
 * a choice of speed, never of rows. SQLite counts at most `limit + 1` rows. PostgreSQL asks the
 * catalog instead (the planner's own estimate: the density of the last VACUUM or ANALYZE times
 * the pages now), as a count of every tenant's rows is the one statement of a seed that would
 * name no tenant (on Citus, a statement on every shard). An empty heap holds none; a table never
 * analyzed is taken as too large, so the load goes in batches, the way that suits a live table.
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
