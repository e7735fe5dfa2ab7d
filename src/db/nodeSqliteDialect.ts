import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type SelectQueryNode,
  type TransactionSettings,
} from 'kysely';
import { SqliteReaders, type Reader, type ReadersOptions } from './sqliteReaders.ts';
import { driverFlagsOf } from './driverFlags.ts';
import { flatCopy, TextBoundedMap } from './textBoundedMap.ts';

/**
 * How long one stretch of reading rows may hold the event loop. node:sqlite is synchronous:
 * a 5000-row page read in one go blocks every other request (even /health) for tens of ms.
 * Reading row by row and yielding between stretches keeps the loop responsive; the connection
 * stays locked meanwhile, so no other statement interleaves on it.
 */
export const MAX_STRETCH_MS = 4;

/**
 * How long a statement outside a transaction (a BEGIN IMMEDIATE, a lone write) waits for
 * another process's write lock before it fails with SQLITE_BUSY (a 503). SQLite's own busy
 * timeout would wait by sleeping on the event loop, freezing every request (even /health) for
 * that long: it is 0 here, and the wait is ours, asynchronous (see #runWaitingOutLocks).
 */
export const LOCK_WAIT_MS = 5_000;
/** The pauses between tries: short at first (most locks are short), then every 50 ms. */
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 50;

/** SQLITE_BUSY and its extended codes: the file is locked by another connection. */
function isBusy(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === 5;
}

/** A statement is a reader when it yields columns (SELECT, or anything with RETURNING). */
interface Prepared {
  stmt: StatementSync;
  reader: boolean;
}

class NodeSqliteConnection implements DatabaseConnection {
  readonly #db: DatabaseSync;
  // Kysely compiles the same SQL text for every call of one query shape, so cache statements
  // (each holds SQLite's compiled program, which grows with its text: bounded by text too).
  readonly #statements = new TextBoundedMap<Prepared>(500, 4_000_000);
  /** Lets other queries have the connection for a while, and takes it back (the driver's queue). */
  readonly #stepAside: (ms: number) => Promise<void>;

  constructor(db: DatabaseSync, stepAside: (ms: number) => Promise<void>) {
    this.#db = db;
    this.#stepAside = stepAside;
  }

  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  #prepare(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (!prepared) {
      const stmt = this.#db.prepare(sql);
      prepared = { stmt, reader: stmt.columns().length > 0 };
      this.#statements.set(flatCopy(sql), prepared, sql.length);
    }
    return prepared;
  }

  /**
   * When the current stretch of synchronous work began; undefined once the event loop has turned.
   * Per connection, not per statement: a chain of short statements awaits only settled promises,
   * which never let I/O in, so it must yield too. A statement after the loop turned starts a new
   * stretch rather than yielding at once (decision 0013).
   */
  #stretchStarted: number | undefined;
  #stretches = 0;

  #beginStretch(): void {
    this.#stretchStarted = performance.now();
    const stretch = ++this.#stretches;
    // Runs when the loop turns: the stretch is over unless a newer one has begun meanwhile.
    setImmediate(() => {
      if (this.#stretches === stretch) this.#stretchStarted = undefined;
    });
  }

  async #yieldIfLong(): Promise<void> {
    if (this.#stretchStarted === undefined) return this.#beginStretch();
    if (performance.now() - this.#stretchStarted > MAX_STRETCH_MS) {
      await nextTurn();
      this.#beginStretch();
    }
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    await this.#yieldIfLong();
    return this.#runWaitingOutLocks(() => this.#execute<R>(compiled));
  }

  /**
   * Runs a statement; outside a transaction, while another process holds the write lock, tries
   * again with growing pauses until LOCK_WAIT_MS, the connection left to other queries (reads
   * go on) and the event loop free meanwhile. A statement outside a transaction that failed
   * BUSY did nothing, so trying it again is safe; inside one the lock is already ours (writes
   * begin IMMEDIATE) and a read never waits in WAL mode.
   */
  async #runWaitingOutLocks<T>(run: () => Promise<T>): Promise<T> {
    if (this.#db.isTransaction) return run();
    const deadline = performance.now() + LOCK_WAIT_MS;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
      try {
        return await run();
      } catch (error) {
        const left = deadline - performance.now();
        if (!isBusy(error) || left <= 0) throw error;
        await this.#stepAside(Math.min(pause, left));
      }
    }
  }

  async #execute<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { stmt, reader } = this.#prepare(compiled.sql);
    const parameters = compiled.parameters as SQLInputValue[];
    if (!reader) {
      const { changes, lastInsertRowid } = stmt.run(...parameters);
      await this.#yieldIfLong();
      return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    }
    if (driverFlagsOf(compiled).readAtOnce) {
      const rows = stmt.all(...parameters) as R[];
      await this.#yieldIfLong();
      return { rows };
    }
    const rows: R[] = [];
    for (const row of stmt.iterate(...parameters)) {
      rows.push(row as R);
      if ((rows.length & 63) === 0) await this.#yieldIfLong();
    }
    await this.#yieldIfLong();
    return { rows };
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { stmt } = this.#prepare(compiled.sql);
    for (const row of stmt.iterate(...(compiled.parameters as SQLInputValue[]))) yield { rows: [row as R] };
  }
}

/**
 * A statement Kysely built as a SELECT, or raw SQL that begins as one (after comments): it
 * reads, and may run on a reader. A raw `with … insert` would too; a reader's connection is
 * read-only, and such a statement is then run again on the writing connection.
 */
function isRead(compiled: CompiledQuery): boolean {
  if (compiled.query.kind === 'SelectQueryNode') return true;
  return compiled.query.kind === 'RawNode' && /^\s*(\/\*[^*]*\*\/\s*)*(select|with)\b/i.test(compiled.sql);
}

/** SQLITE_READONLY and its extended codes: a write sent to a reader's read-only connection. */
function isReadOnlyRefusal(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === 8;
}

/**
 * What one Kysely connection (a lone statement, a `db.connection()`, a transaction) holds: the
 * writing connection's turn while it writes, or a reader for a read-only transaction. A lone
 * read takes any free reader for its one statement and holds neither.
 */
class NodeSqliteSession implements DatabaseConnection {
  readonly #driver: NodeSqliteDriver;
  #transaction: { kind: 'write' } | { kind: 'read'; reader: Reader } | undefined;

  constructor(driver: NodeSqliteDriver) {
    this.#driver = driver;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const readers = this.#driver.readers;
    const transaction = this.#transaction;
    if (transaction?.kind === 'read' && readers) {
      return { rows: (await readers.queryOn(transaction.reader, compiled.sql, compiled.parameters as SQLInputValue[])) as R[] };
    }
    if (transaction?.kind === 'write') return this.#driver.writer.executeQuery<R>(compiled);
    // The one place a lone statement's connection is chosen: writes, and reads flagged bounded by
    // the code that built them (driverFlags.ts), on the writing connection; every other read on a reader.
    if (!readers || !isRead(compiled) || driverFlagsOf(compiled).bounded) return this.#driver.onWriter((writer) => writer.executeQuery<R>(compiled));
    try {
      return { rows: (await readers.query(compiled.sql, compiled.parameters as SQLInputValue[])) as R[] };
    } catch (error) {
      if (!isReadOnlyRefusal(error)) throw error;
      return this.#driver.onWriter((writer) => writer.executeQuery<R>(compiled));
    }
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // Rows are yielded one by one: the writing connection is this session's until the end.
    const ownTurn = this.#transaction?.kind !== 'write';
    if (ownTurn) await this.#driver.takeTurn();
    try {
      yield* this.#driver.writer.streamQuery<R>(compiled);
    } finally {
      if (ownTurn) this.#driver.endTurn();
    }
  }

  async begin(settings: TransactionSettings): Promise<void> {
    const readers = this.#driver.readers;
    if (settings.accessMode === 'read only' && readers) {
      // A read-only transaction keeps its snapshot on one reader from BEGIN to its end.
      const deadline = readers.deadline();
      const reader = await readers.acquire(deadline);
      try {
        await readers.queryOn(reader, 'begin', [], deadline);
      } catch (error) {
        readers.release(reader);
        throw error;
      }
      this.#transaction = { kind: 'read', reader };
      return;
    }
    // A transaction that may write holds the writing connection from BEGIN to COMMIT or ROLLBACK.
    await this.#driver.takeTurn();
    try {
      // It takes the write lock at its start (BEGIN IMMEDIATE), waiting out another process's
      // write. A deferred BEGIN that read first and wrote after failed at once with
      // SQLITE_BUSY_SNAPSHOT (a 503) whenever another process (a second instance, a seed)
      // committed in between: two instances given the same Idempotency-Key at once answered 409
      // and 503. A read-only transaction with no readers (an in-memory database) stays deferred.
      await this.#driver.writer.executeQuery(CompiledQuery.raw(settings.accessMode === 'read only' ? 'begin' : 'begin immediate'));
      this.#transaction = { kind: 'write' };
    } catch (error) {
      this.#driver.endTurn();
      throw error;
    }
  }

  async end(statement: 'commit' | 'rollback'): Promise<void> {
    const transaction = this.#transaction;
    if (!transaction) return;
    if (transaction.kind === 'read') {
      this.#transaction = undefined;
      const readers = this.#driver.readers as SqliteReaders;
      // A reader given up on (a statement past the limit) has nothing left to end.
      if (transaction.reader.abandoned || transaction.reader.gone) return;
      try {
        await readers.queryOn(transaction.reader, 'rollback', []);
      } finally {
        readers.release(transaction.reader);
      }
      return;
    }
    try {
      await this.#driver.writer.executeQuery(CompiledQuery.raw(statement));
    } catch (error) {
      // A COMMIT that failed leaves the transaction open: end it before anyone else has the connection.
      if (this.#driver.writer.inTransaction) await this.#driver.writer.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
      throw error;
    } finally {
      this.#transaction = undefined;
      this.#driver.endTurn();
    }
  }

  /** Kysely gives the connection back: anything it still held is let go. */
  async release(): Promise<void> {
    if (this.#transaction) await this.end('rollback');
  }
}

/**
 * SQLite has one writing connection: a queue hands it to one statement or transaction at a
 * time. Reads run on the readers (sqliteReaders.ts), each within the statement timeout, when
 * the database is a file; an in-memory database has only the one connection.
 */
class NodeSqliteDriver implements Driver {
  readonly #db: DatabaseSync;
  readonly writer: NodeSqliteConnection;
  readonly readers: SqliteReaders | undefined;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(db: DatabaseSync, options: SqliteDialectOptions) {
    this.#db = db;
    this.writer = new NodeSqliteConnection(db, (ms) => this.#stepAside(ms));
    const path = db.location();
    this.readers =
      path && options.readers !== false ? new SqliteReaders({ path, statementTimeoutMs: options.statementTimeoutMs ?? 0, ...options.readers }) : undefined;
  }

  async init(): Promise<void> {}

  async takeTurn(): Promise<void> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise((resolve) => (release = resolve));
    await previous;
    this.#release = release;
  }

  endTurn(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  /** One statement on the writing connection, in a turn of its own. */
  async onWriter<T>(run: (writer: NodeSqliteConnection) => Promise<T>): Promise<T> {
    await this.takeTurn();
    try {
      return await run(this.writer);
    } finally {
      this.endTurn();
    }
  }

  /** A statement waiting for another process's lock lets the queries queued behind it run meanwhile. */
  async #stepAside(ms: number): Promise<void> {
    this.endTurn();
    await sleep(ms);
    await this.takeTurn();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new NodeSqliteSession(this);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as NodeSqliteSession).release();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await (connection as NodeSqliteSession).begin(settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as NodeSqliteSession).end('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as NodeSqliteSession).end('rollback');
  }

  async destroy(): Promise<void> {
    await this.readers?.close();
    this.#db.close();
  }
}

export function openSqlite(path: string): DatabaseSync {
  // Opening happens before serving: waiting on the loop here (switching to WAL) freezes nothing.
  const raw = new DatabaseSync(path, { timeout: LOCK_WAIT_MS });
  raw.exec('PRAGMA journal_mode = WAL');
  raw.exec('PRAGMA synchronous = NORMAL');
  raw.exec('PRAGMA foreign_keys = ON');
  // From here on a lock is waited for by the driver, off the event loop (#runWaitingOutLocks).
  raw.exec('PRAGMA busy_timeout = 0');
  return raw;
}

/**
 * Row locks are the database layer's: a write locks the rows it reads with Kysely's
 * `forUpdate()` (or `forNoKeyUpdate()`, or `forShare()` to keep a row as read) on either database. PostgreSQL takes the row locks; SQLite
 * has no row locks (a write transaction holds the whole file) and no `FOR UPDATE`, so here the
 * clause (and `SKIP LOCKED`) is left out.
 */
const ROW_LOCK_MODIFIERS = new Set(['ForUpdate', 'ForNoKeyUpdate', 'ForShare', 'SkipLocked']);

class NodeSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitSelectQuery(node: SelectQueryNode): void {
    const endModifiers = node.endModifiers?.filter((m) => !ROW_LOCK_MODIFIERS.has(m.modifier ?? ''));
    super.visitSelectQuery(endModifiers?.length === node.endModifiers?.length ? node : { ...node, endModifiers });
  }
}

export interface SqliteDialectOptions {
  /** How long a read may take on a reader (PG_STATEMENT_TIMEOUT_MS); 0 or unset: no limit. */
  statementTimeoutMs?: number;
  /** The readers' number and how many given up on may still run (sqliteReaders.ts); false: none, every read on the one connection. */
  readers?: Pick<ReadersOptions, 'size' | 'maxAbandoned'> | false;
}

/** Kysely over Node's built-in SQLite: Kysely's SQLite adapter, its compiler without `FOR UPDATE`, our driver. */
export function nodeSqliteDialect(db: DatabaseSync, options: SqliteDialectOptions = {}): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new NodeSqliteDriver(db, options),
    createQueryCompiler: () => new NodeSqliteQueryCompiler(),
    createIntrospector: (kysely: Kysely<unknown>) => new SqliteIntrospector(kysely),
  };
}
