import { ChangeSignal } from './changeSignal.ts';
import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  sql,
  type DatabaseIntrospector,
  type Driver,
  type DatabaseMetadataOptions,
  type TableMetadata,
} from 'kysely';
import pg from 'pg';
import type { Database, Dialect } from './schema.ts';
import type { DatabaseSync } from 'node:sqlite';
import { nodeSqliteDialect, openSqlite, type CommitTally } from './nodeSqliteDialect.ts';
import { sqlitePathOf } from '../config/sqlitePath.ts';
import { ensureSqliteFolder } from './sqliteFolder.ts';
import { PreparingPostgresDriver } from './preparingPostgresDriver.ts';
import { poolerSafeClient } from './poolerSafeClient.ts';
import { multiHostsOf, parsePostgresUrl } from '../config/postgresHosts.ts';
import { writableHostClient } from './writableHostClient.ts';
import { ANSWER_GRACE_MS, statementDeadlineClient } from './statementDeadline.ts';
import { answersOnNewConnection } from './databaseAnswers.ts';
import { mergeSettings, parseStartupOptions, sessionSettings, settingsStatement, startupOptionsText } from './sessionSettings.ts';
import { timestamptzToIso } from './timestamptzText.ts';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** Connections in use and waiting, for metrics. */
  poolStats(): PoolStats;
  /** SQLite: write transactions committed and the commits they took (several wait and commit as one: nodeSqliteDialect.ts). */
  commitTally?: Readonly<CommitTally>;
  close(): Promise<void>;
  /**
   * The driver underneath, for bulk loads that Kysely cannot express (the seed command's
   * prepared INSERT on SQLite, COPY on PostgreSQL). Use SQLite's handle only inside a Kysely
   * transaction that may write: that holds the one writing connection, so nothing else runs on
   * it meanwhile (a read-only transaction runs on a reader thread instead).
   */
  native: NativeHandle;
  /** Tenants whose committed writes recorded list changes (lists/counters/countFolder.ts folds them). */
  listChanges: ChangeSignal;
  /**
   * PostgreSQL: how long a statement may go without an answer before its connection is given up
   * (the statement limit plus ANSWER_GRACE_MS; statementDeadline.ts). An export's COPY, which has
   * no limit, asks whether the database still answers after this long without bytes. Undefined: no bound.
   */
  unansweredAfterMs?: number;
}

export type NativeHandle = { dialect: 'sqlite'; database: DatabaseSync } | { dialect: 'postgres'; pool: pg.Pool };

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface OpenOptions {
  poolMax?: number;
  /** PostgreSQL schema to use (tests isolate themselves this way). */
  searchPath?: string;
  /**
   * How long one statement may run (ms); 0 or unset: none. PostgreSQL: `statement_timeout` on
   * every pooled connection. SQLite: the reads, on their reader threads (sqliteReaders.ts).
   */
  statementTimeoutMs?: number;
  /**
   * SQLite: reads run on reader threads (sqliteReaders.ts), within `statementTimeoutMs`. On by
   * default; a CLI command (seed, migrate, keys: no request, no limit) turns it off and reads on
   * its one connection, sparing the threads' start (~0.1 s of CPU each, measured).
   */
  sqliteReaders?: boolean;
  /** PostgreSQL: give up connecting, or waiting for a free pooled client, after this long. */
  connectionTimeoutMs?: number;
  /**
   * PostgreSQL: what stands between us and the server (PG_POOLER). `none`: settings are the
   * connection's startup options and list statements are prepared by name. `session`: no startup
   * options (a pooler refuses them); settings go with each transaction. `transaction`: that, and
   * no named statements either (the next transaction may run on another server connection).
   */
  pooler?: 'none' | 'session' | 'transaction';
  /** SQLite: create the file's folder when missing (only the embedded default's); else a missing one is refused. */
  createFolder?: boolean;
}

export const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;
export const DEFAULT_PING_TIMEOUT_MS = 2_000;
/**
 * TCP keepalive on every connection: after this long idle, a probe every second, ten unanswered
 * and the kernel ends it (Node's defaults after the delay). The OS's own delay is two hours: a
 * pooled connection to a host gone without a reset would wait that long to be found dead.
 */
const KEEPALIVE_IDLE_MS = 10_000;

const PG_TIMESTAMPTZ = 1184;
const PG_INT8 = 20;

function pgTypes() {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === PG_TIMESTAMPTZ) return timestamptzToIso;
      // Amounts are minor units well inside 2^53; counts likewise.
      if (oid === PG_INT8) return Number;
      return pg.types.getTypeParser(oid, format);
    },
  };
}

/**
 * Kysely's introspection, as the migrator uses it, for the session's own schema only. Kysely's
 * lists the columns of every schema in the database and calls functions on each schema's name:
 * it grew with the number of schemas, and failed ('schema … does not exist') when another
 * process dropped one meanwhile (side-by-side test schemas do). The migrator only asks which
 * tables exist.
 */
class OwnSchemaIntrospector extends PostgresIntrospector {
  readonly #db: Kysely<unknown>;
  constructor(db: Kysely<unknown>) {
    super(db);
    this.#db = db;
  }

  override async getTables(_options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; is_view: boolean }>`
      select table_name as name, table_schema as schema, table_type = 'VIEW' as is_view
      from information_schema.tables where table_schema = current_schema()`.execute(this.#db);
    return rows.map((r) => ({ name: r.name, schema: r.schema, isView: r.is_view, columns: [] }));
  }
}

/**
 * Kysely's migration lock, as a transaction's lock instead of a session's. Behind a transaction
 * pooler the session lock and its unlock land on different server connections, and the lock stays
 * held so every later migration waits (decision 0010). Here the lock opens the transaction the
 * migrations run in and its end releases it; that transaction has no statement timeout.
 */
class TransactionLockedMigrations extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin`.execute(db);
    // Not a request: a backfill over 10M rows runs longer than any request may (PG_STATEMENT_TIMEOUT_MS),
    // and so does waiting for another instance's. A statement's timeout is armed when it starts:
    // lifted in a statement of its own, it is off for the lock's wait too.
    await sql`select set_config('statement_timeout', '0', true)`.execute(db);
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_ID)})`.execute(db);
  }

  override async releaseMigrationLock(): Promise<void> {}
}
const MIGRATION_LOCK_ID = BigInt('3853314791062309107');

/** Kysely's PostgreSQL, its introspection and migration lock ours, and its driver (named statements: preparingPostgresDriver.ts). */
class OwnSchemaPostgresDialect extends PostgresDialect {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    super({ pool });
    this.#pool = pool;
  }

  override createDriver(): Driver {
    return new PreparingPostgresDriver(this.#pool);
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }

  override createAdapter(): PostgresAdapter {
    return new TransactionLockedMigrations();
  }
}

export function openDatabase(databaseUrl: string, options: OpenOptions = {}): Db {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const pooler = options.pooler ?? 'none';
    const urlOptions = parsePostgresUrl(databaseUrl).searchParams.get('options');
    const ours = sessionSettings({ ...options, namedStatements: pooler !== 'transaction' });
    // node-postgres lets a URL's `options` replace the config's: ours are put after the URL's own instead.
    const connectionString = urlOptions ? databaseUrl.replace(/([?&])options=[^&]*&?/, '$1').replace(/[?&]$/, '') : databaseUrl;
    // Behind a pooler: a client whose every statement carries our settings, as no startup options may.
    const carrying =
      pooler === 'none'
        ? undefined
        : poolerSafeClient({
            settingsSql: settingsStatement(mergeSettings(parseStartupOptions(urlOptions ?? ''), ours)),
            namedStatements: pooler === 'session',
          });
    // Several hosts (libpq's multi-host URL): each new connection finds the one that takes writes.
    const hosts = multiHostsOf(connectionString);
    const limitMs = options.statementTimeoutMs ?? 0;
    // No statement waits on a silent server past its limit plus a grace (a host gone without a reset).
    const stillAnswering = () => answersOnNewConnection(pool, limitMs + ANSWER_GRACE_MS);
    const Bounded = limitMs > 0 ? statementDeadlineClient(carrying ?? pg.Client, { limitMs, stillAnswering }) : carrying;
    const Client = hosts ? writableHostClient(Bounded ?? pg.Client, hosts, pooler !== 'none') : Bounded;
    const pool: pg.Pool = new pg.Pool({
      connectionString: hosts ? hosts[0]?.url : connectionString,
      max: options.poolMax ?? 10,
      // Without a bound a request waits forever while the server is unreachable or the pool is drained.
      connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
      types: pgTypes(),
      // A pooler refuses startup options, and would hand the next transaction to another server
      // connection anyway: each statement outside a transaction, and each transaction, carries them.
      ...(pooler === 'none' ? { options: `${urlOptions ? `${urlOptions} ` : ''}${startupOptionsText(ours)}` } : {}),
      ...(Client ? { Client } : {}),
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // Nor may a checked-out one (between a transaction's statements when the server restarts):
    // its next query then fails as "not queryable" (a 503) and the pool drops it on release.
    pool.on('connect', (client) => client.on('error', () => {}));
    const kysely = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect(pool) });
    const db = wrap(kysely, { dialect: 'postgres', pool }, () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: pool.options.max ?? 10,
    }));
    return limitMs > 0 ? { ...db, unansweredAfterMs: limitMs + ANSWER_GRACE_MS } : db;
  }
  const path = sqlitePathOf(databaseUrl);
  if (!path) throw new Error(`DATABASE_URL must be postgres://… or sqlite:<path>, got ${databaseUrl}`);
  if (path !== ':memory:') ensureSqliteFolder(path, options.createFolder === true);
  const database = openSqlite(path);
  const tally: CommitTally = { commits: 0, transactions: 0 };
  const kysely = new Kysely<Database>({
    dialect: nodeSqliteDialect(database, {
      statementTimeoutMs: options.statementTimeoutMs,
      readers: options.sqliteReaders === false ? false : undefined,
      tally,
    }),
  });
  // One synchronous connection: it is always there and never waited for.
  return { ...wrap(kysely, { dialect: 'sqlite', database }, () => ({ total: 1, idle: 1, waiting: 0, max: 1 })), commitTally: tally };
}

function wrap(kysely: Kysely<Database>, native: NativeHandle, poolStats: () => PoolStats): Db {
  return {
    kysely,
    dialect: native.dialect,
    native,
    poolStats,
    listChanges: new ChangeSignal(),
    close: () => kysely.destroy(),
  };
}
