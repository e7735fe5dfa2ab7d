import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/** The tables a seed writes to in bulk. */
const LOADED_TABLES = ['accounts', 'payments', 'account_metadata', 'payment_metadata', 'list_counts', 'list_buckets', 'metadata_value_counts'] as const;

/**
 * PostgreSQL, after a seed: the loaded tables vacuumed and analyzed, as autovacuum would do some time
 * later (or never). Until then the planner has no statistics for the new rows (decision 0028),
 * and without a visibility map no index-only scan skips the table. VACUUM runs outside a
 * transaction, one table per statement; the caller runs this on PostgreSQL only.
 */
export async function refreshLoadedTableStatistics(db: Kysely<Database>): Promise<void> {
  for (const table of LOADED_TABLES) await sql`vacuum (analyze) ${sql.table(table)}`.execute(db);
}
