import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialectOf.ts';
import { withFlags } from './driverFlags.ts';
import type { Database } from './schema.ts';

/**
 * VACUUMs one table of our schema on PostgreSQL (SQLite frees a deleted row's index entries at
 * once: nothing to do). Skips it when another vacuum holds the table, and never truncates it
 * (that takes a lock writers wait on). Sent alone, its schema in its text, so that it runs
 * behind a transaction pooler too (DriverFlags.alone).
 */
export async function vacuumTable(db: Kysely<Database>, table: keyof Database & string): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const vacuum = sql`vacuum (skip_locked, truncate false) ${sql.table(`${rows[0].schema}.${table}`)}`.compile(db);
  await db.executeQuery(withFlags(vacuum, { alone: true }));
}
