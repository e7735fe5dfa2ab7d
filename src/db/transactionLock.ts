import { sql, type Transaction } from 'kysely';
import type { Database, Dialect } from './schema.ts';

/**
 * PostgreSQL: how long a transaction outlives an instance that vanished without closing its
 * connection (its host powered off, the network cut): the database ends a transaction left idle
 * this long, and its locks with it. A process that dies (SIGKILL, a crash) loses them at once:
 * the OS closes its connections and PostgreSQL rolls back.
 */
export const ABANDONED_TRANSACTION_MS = 5_000;
/** PostgreSQL 14+: how often a running statement checks that its client is still there. */
const CLIENT_CHECK_MS = 1_000;

/**
 * Takes a lock on `name` until the transaction ends, or answers false at once when another
 * transaction holds it, on any instance. PostgreSQL: a transaction-scoped advisory lock, and the
 * transaction bounded as its holder: idle, by ABANDONED_TRANSACTION_MS; in a statement (waiting
 * for a row lock, say) whose client died, by the client check (without it the statement would
 * run on to its end before noticing). SQLite: a write transaction holds the whole file, so no
 * other can be running: always true.
 */
export async function tryTransactionLock(trx: Transaction<Database>, dialect: Dialect, name: string): Promise<boolean> {
  if (dialect === 'sqlite') return true;
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(hashtextextended(${name}::text, 0)) as locked,
           set_config('idle_in_transaction_session_timeout', ${String(ABANDONED_TRANSACTION_MS)}, true) as idle_timeout,
           case when current_setting('server_version_num')::int >= 140000
             then set_config('client_connection_check_interval', ${String(CLIENT_CHECK_MS)}, true) end as client_check`.execute(trx);
  return rows[0]?.locked === true;
}
