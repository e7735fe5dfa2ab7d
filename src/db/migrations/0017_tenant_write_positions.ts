import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema.ts';

/*
 * Read replicas with read-your-writes (issue 32): the WAL position each tenant's last
 * acknowledged write reached on the primary (`pg_current_wal_lsn() - '0/0'`, in bytes), recorded
 * after its commit and before its answer (src/db/writePositions.ts), and read with the API key at
 * the start of every request. A read goes to a replica only when the replica has replayed at
 * least this far. One row per tenant that ever wrote; the value only grows. On SQLite the table
 * is there (one schema, one key query for both) and stays empty.
 */
export function tenantWritePositionsMigration(dialect: Dialect) {
  const withoutRowid = dialect === 'sqlite' ? ' without rowid' : '';
  return {
    async up(db: Kysely<unknown>) {
      await sql
        .raw(
          `create table tenant_write_positions (
            tenant_id text primary key,
            position bigint not null
          )${withoutRowid}`,
        )
        .execute(db);
    },
  };
}
