import { sql } from 'kysely';
import type { Db } from './database.ts';

/**
 * Records how far the primary's WAL has reached, for `tenantId`, after one of its writes has
 * committed and before it is answered (readReplicas.ts reads it back with the API key and sends
 * the tenant's reads to a replica only once that replica has replayed this far).
 *
 * `pg_current_wal_lsn()` read after the COMMIT returned is at or past the commit's record, on any
 * connection to the primary (it is the server's, not the session's), so this needs not run on the
 * write's own connection and works behind a transaction pooler. One statement, one round trip;
 * `greatest` keeps the row's value growing when two writes of a tenant answer out of order. Its
 * own commit waits for the local flush only (`synchronous_commit = local`, for this transaction):
 * the write it follows has already waited for the standbys, and this row is read on the primary.
 */
export async function recordWritePosition(db: Db, tenantId: string): Promise<void> {
  await sql`
    with local_commit as (select set_config('synchronous_commit', 'local', true))
    insert into tenant_write_positions (tenant_id, position)
    select ${tenantId}, (pg_current_wal_lsn() - '0/0')::bigint from local_commit
    on conflict (tenant_id) do update set position = greatest(tenant_write_positions.position, excluded.position)`.execute(db.kysely);
}
