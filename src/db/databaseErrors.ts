/**
 * The one place that tells database failures a client should retry (503 + Retry-After) from
 * bugs (500): the database too busy right now, or not there right now.
 */
import { databaseBusy, databaseTimeout, serviceUnavailable, type Problem } from '../core/problem.ts';
import { StatementTimedOut } from './sqliteReaders.ts';

/** PostgreSQL's `query_canceled`: here, a statement that ran past `statement_timeout`. */
const PG_QUERY_CANCELED = '57014';
/**
 * PostgreSQL SQLSTATEs for "too busy right now": 53300 too_many_connections (the server's
 * `max_connections`, or a role's or database's CONNECTION LIMIT), 53400
 * configuration_limit_exceeded, 55P03 lock_not_available (a `lock_timeout`), and the two
 * transaction conflicts (below) once inWriteTransaction's retries are spent.
 */
const PG_BUSY_CODES = new Set(['53300', '53400', '55P03']);
/**
 * 40001 serialization_failure and 40P01 deadlock_detected: PostgreSQL rolled the whole
 * transaction back because of another one running at the same time; run again, it may well pass.
 */
const PG_CONFLICT_CODES = new Set(['40001', '40P01']);
/** 25006 read_only_sql_transaction: a write sent to a standby, or to a database set read-only. */
const PG_READ_ONLY = '25006';
/** What pg-pool says when no connection became free within `connectionTimeoutMillis`. */
const POOL_ACQUIRE_TIMEOUT = 'timeout exceeded when trying to connect';
/**
 * SQLite's SQLITE_BUSY and SQLITE_LOCKED, with their extended codes (the low byte): another
 * writer held the file past the busy timeout, or (SQLITE_BUSY_SNAPSHOT, 517) committed after
 * this transaction read and before it wrote, in another process (WORKERS, a running seed).
 */
const SQLITE_BUSY_CODES = new Set([5, 6]);

const codeOf = (error: unknown) => (typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined);

/** True for a transaction PostgreSQL rolled back over a concurrent one (40001, 40P01): safe to run again from the start. */
export function isTransactionConflict(error: unknown): boolean {
  const code = codeOf(error);
  return typeof code === 'string' && PG_CONFLICT_CODES.has(code);
}

/** True for a write refused because the database takes none (a standby, or set read-only). */
export function isDatabaseReadOnly(error: unknown): boolean {
  return codeOf(error) === PG_READ_ONLY;
}

/**
 * Database errors that mean "too busy right now, try again": a statement cut off by the
 * statement timeout, no free pooled connection in time, the server out of connections, a lock
 * or a transaction conflict that outlasted its retries, or (SQLite) the file locked by another
 * writer past the busy timeout. All are 503 with Retry-After, never a 500: the request was fine
 * and a retry may well succeed. Other database errors are left to the caller (undefined).
 */
export function databaseBusyProblem(error: unknown): Problem | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, errcode } = error as { code?: unknown; message?: unknown; errcode?: unknown };
  if (code === PG_QUERY_CANCELED || error instanceof StatementTimedOut) return databaseTimeout();
  if (typeof code === 'string' && (PG_BUSY_CODES.has(code) || PG_CONFLICT_CODES.has(code))) return databaseBusy();
  if (message === POOL_ACQUIRE_TIMEOUT || (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && SQLITE_BUSY_CODES.has(errcode & 0xff))) {
    return databaseBusy();
  }
  return undefined;
}

// Unavailable: the server went away, is not reachable, or is not accepting work yet.

/** Socket-level failures reaching or talking to the server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * PostgreSQL SQLSTATEs for a server going away or not yet accepting work: class 08 (connection
 * exception), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up,
 * shutting down, in recovery).
 */
function isUnavailableSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03';
}

/** node-postgres and pg-pool report lost or timed-out connections by message only. */
const CONNECTION_MESSAGES = [
  'Connection terminated', // unexpectedly / due to connection timeout
  'timeout exceeded when trying to connect', // pool: no client within connectionTimeoutMillis
  'is not queryable', // client already broken or closed
  'Cannot use a pool after calling end on the pool',
];

function isUnavailableOne(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || isUnavailableSqlState(code))) return true;
  return typeof message === 'string' && CONNECTION_MESSAGES.some((m) => message.includes(m));
}

/** True when the error (or anything in its cause chain) says the database is unreachable or going away. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isUnavailableOne(e)) return true;
    if (e instanceof AggregateError && e.errors.some(isUnavailableOne)) return true;
  }
  return false;
}

/** One host of a multi-host DATABASE_URL passed over when connecting, and why. */
export interface HostRefusal {
  /** `host:port` */
  host: string;
  /** What went wrong there, in a few words (never the URL's credentials). */
  reason: string;
  /** It answered, and takes no writes (a standby, or set read-only). */
  readOnly: boolean;
}

/**
 * No host of a multi-host DATABASE_URL took a writable connection: each was unreachable,
 * refused, or read-only. SQLSTATE 08001 (sqlclient_unable_to_establish_sqlconnection, libpq's
 * class for this), so it is a 503 and worth waiting for at start; the message names every host.
 */
export class NoWritableHost extends Error {
  readonly code = '08001';
  readonly refusals: HostRefusal[];
  constructor(refusals: HostRefusal[]) {
    super(`no writable host: ${refusals.map((r) => `${r.host} ${r.reason}`).join(', ')}`);
    this.name = 'NoWritableHost';
    this.refusals = refusals;
  }

  /** Every host answered and is read-only: a failover under way, or no primary promoted yet. */
  get onlyReadOnly(): boolean {
    return this.refusals.every((r) => r.readOnly);
  }
}

/**
 * A connection we gave up: its statement (or an export's COPY) had no answer from the server
 * within its limit plus a grace, as when the host vanished without a reset (a dropped route, a
 * dead VM). SQLSTATE 08006 (connection_failure), so it is a 503 like any connection lost.
 */
export class DatabaseNotAnswering extends Error {
  readonly code = '08006';
  constructor(waitedMs: number) {
    super(`the database sent nothing for ${waitedMs} ms: its connection was closed`);
    this.name = 'DatabaseNotAnswering';
  }
}

/** The 503 a database failure deserves, or undefined when it is not one (a bug stays a 500). */
export function databaseProblem(error: unknown): Problem | undefined {
  const busy = databaseBusyProblem(error);
  if (busy) return busy;
  if (isDatabaseReadOnly(error) || (error instanceof NoWritableHost && error.onlyReadOnly))
    return serviceUnavailable('The database takes no writes right now (it is read-only, as during a failover); retry shortly.');
  return isDatabaseUnavailable(error) ? serviceUnavailable('The database is not available; retry shortly.') : undefined;
}

/**
 * The server's own answer: an ErrorResponse (severity, SQLSTATE, message) from PostgreSQL or a
 * pooler speaking its protocol (PgBouncer), as opposed to a failure to reach it at all. A server
 * that answered is reachable, whatever the SQLSTATE's class says.
 */
export function serverAnswer(error: unknown): { code: string; message: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, severity } = error as { code?: unknown; message?: unknown; severity?: unknown };
  if (typeof severity !== 'string' || typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || typeof message !== 'string') return undefined;
  return { code, message };
}

/**
 * What to tell an operator whose named prepared statements fail the way they do behind a
 * transaction pooler with PG_POOLER left at `none`: the statement was prepared on one server
 * connection and the next transaction ran on another (26000), or met its own name there (42P05).
 */
export function poolerHint(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if ((code === '26000' || code === '42P05') && typeof message === 'string' && message.includes('prepared statement')) {
    return 'named prepared statements fail as they do behind a transaction-pooling PgBouncer: set PG_POOLER=transaction (docs/scaling.md "Running behind PgBouncer")';
  }
  return undefined;
}
