import { sql, type Insertable, type RawBuilder, type Transaction } from 'kysely';
import { withFlags } from './driverFlags.ts';
import { guardFragment, type StatementGuard } from './guardedStatement.ts';
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

/** The lock's call and its transaction's bounds (below), as select-list columns; `locked` is the lock's answer. */
function lockColumns(name: string) {
  return sql`pg_try_advisory_xact_lock(hashtextextended(${name}::text, 0)) as locked,
           set_config('idle_in_transaction_session_timeout', ${String(ABANDONED_TRANSACTION_MS)}, true) as idle_timeout,
           case when current_setting('server_version_num')::int >= 140000
             then set_config('client_connection_check_interval', ${String(CLIENT_CHECK_MS)}, true) end as client_check`;
}

/** What tryTransactionLockAndInsert found: the lock taken, the row inserted, and whether its guard held (true when it had none). */
export interface LockAndInsertOutcome {
  locked: boolean;
  inserted: boolean;
  guarded: boolean;
}

/**
 * A lock on `name` for the transaction (false at once if another instance holds it; on SQLite the
 * write holds the file), then `row` unless its `conflict` columns are taken, in one statement
 * (0061). With a `guard` (an unproven key, 0095) nothing happens unless its select yields a row;
 * `held` is then called.
 */
export async function tryTransactionLockAndInsert<T extends keyof Database & string>(
  trx: Transaction<Database>,
  dialect: Dialect,
  name: string,
  table: T,
  row: Insertable<Database[T]>,
  conflict: Array<keyof Database[T] & string>,
  /** A condition the insert also needs (on PostgreSQL it may lock the rows it reads). */
  onlyIf?: RawBuilder<unknown>,
  guard?: StatementGuard,
): Promise<LockAndInsertOutcome> {
  const entries = Object.entries(row as Record<string, unknown>).filter(([, value]) => value !== undefined);
  const into = sql`insert into ${sql.table(table)} (${sql.join(entries.map(([column]) => sql.ref(column)))})`;
  // The values' types come from the table's columns (an INSERT … SELECT's parameters take its target's types).
  const values = sql.join(entries.map(([, value]) => sql`${value}`));
  const onConflict = sql`on conflict (${sql.join(conflict.map((column) => sql.ref(column)))}) do nothing`;
  if (dialect === 'sqlite') {
    // A statement here is a function call: the guard's select first, in the same transaction.
    const guardRow = guard && (await trx.executeQuery<{ noted: unknown }>(guard.select.compile())).rows[0];
    if (guard && !guardRow) return { locked: false, inserted: false, guarded: false };
    if (guard) guard.held(Boolean(guardRow?.noted));
    // SQLite's upsert needs a WHERE after a SELECT (else ON would read as a join's).
    const result = await sql`${into} select ${values} where ${onlyIf ?? sql`1`} ${onConflict}`.execute(trx);
    return { locked: true, inserted: Number(result.numAffectedRows ?? 0) === 1, guarded: true };
  }
  // The guard, when there is one, is the lock's only row source: no row, no lock, no insert.
  const guardCte = guard ? sql`guard as (${guardFragment(guard.select.compile())}),` : sql``;
  const statement = sql<{ locked: boolean | null; inserted: number; guarded: boolean; noted: boolean | null }>`with ${guardCte}
      lock as (select ${lockColumns(name)}${guard ? sql` from guard` : sql``}),
      claimed as (${into} select ${values} from lock where locked${onlyIf ? sql` and ${onlyIf}` : sql``} ${onConflict} returning 1)
    select (select locked from lock) as locked, (select count(*) from claimed)::int as inserted,
      ${guard ? sql`exists (select 1 from guard) as guarded, (select noted from guard) as noted` : sql`true as guarded, null as noted`}`;
  const { rows } = await trx.executeQuery(withFlags(statement.compile(trx), { prepared: true }));
  const outcome = { locked: rows[0]?.locked === true, inserted: rows[0]?.inserted === 1, guarded: rows[0]?.guarded === true };
  if (guard && outcome.guarded) guard.held(rows[0]?.noted === true);
  return outcome;
}
