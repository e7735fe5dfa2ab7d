import { sql } from 'kysely';
import type { Db } from './database.ts';

/**
 * Records how far the primary's WAL has reached for `tenantId`, after one of its writes committed and
 * before it is answered; readReplicas.ts reads it back (decision 0011). `pg_current_wal_lsn()` is the
 * server's, so any connection will do, behind a pooler too; `greatest` keeps it growing when answers
 * cross, and its commit waits for the local flush only, as the write already waited for standbys.
 */
export async function recordWritePosition(db: Db, tenantId: string): Promise<void> {
  await sql`
    with local_commit as (select set_config('synchronous_commit', 'local', true))
    insert into tenant_write_positions (tenant_id, position)
    select ${tenantId}, (pg_current_wal_lsn() - '0/0')::bigint from local_commit
    on conflict (tenant_id) do update set position = greatest(tenant_write_positions.position, excluded.position)`.execute(db.kysely);
}
