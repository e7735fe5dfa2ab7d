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

/**
 * How long one stretch of reading rows may hold the event loop. node:sqlite is synchronous:
 * a 5000-row page read in one go blocks every other request (even /health) for tens of ms.
 * Reading row by row and yielding between stretches keeps the loop responsive; the connection
 * stays locked meanwhile, so no other statement interleaves on it.
 */
export const MAX_STRETCH_MS = 4;

/**
 * Put this first in a reader's SQL when it returns a bounded number of rows (a list page, at
 * most 5000): it is read in one call rather than row by row with yields in between. Row by row
 * costs about twice the time per row (an iterator step across into C++ each), and a page of
 * 5000 rows takes a few ms in one go, about one stretch. Unbounded reads stay row by row.
 */
export const READ_AT_ONCE = '/* read at once */ ';

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
  // Kysely compiles the same SQL text for every call of one query shape, so cache statements.
  readonly #statements = new Map<string, Prepared>();
  /** Lets other queries have the connection for a while, and takes it back (the driver's queue). */
  readonly #stepAside: (ms: number) => Promise<void>;

  constructor(db: DatabaseSync, stepAside: (ms: number) => Promise<void>) {
    this.#db = db;
    this.#stepAside = stepAside;
  }

  #prepare(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (!prepared) {
      const stmt = this.#db.prepare(sql);
      prepared = { stmt, reader: stmt.columns().length > 0 };
      if (this.#statements.size > 500) this.#statements.clear();
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }

  /**
   * When the current stretch of synchronous work began; undefined once the event loop has
   * turned since (nothing of ours then holds it). Kept per connection, not per statement: a
   * chain of short statements (the skip hops, a transaction's writes) awaits only settled
   * promises, which let microtasks in but never I/O, so it must yield too. A statement that
   * starts after the loop turned begins a new stretch instead of yielding at once: the request
   * arriving after an idle spell, say, has held the loop for nothing yet.
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
    if (compiled.sql.startsWith(READ_AT_ONCE)) {
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

/** SQLite has one connection: a queue hands it to one query or transaction at a time. */
class NodeSqliteDriver implements Driver {
  readonly #db: DatabaseSync;
  readonly #connection: NodeSqliteConnection;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#connection = new NodeSqliteConnection(db, (ms) => this.#stepAside(ms));
  }

  async init(): Promise<void> {}

  async #takeTurn(): Promise<void> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise((resolve) => (release = resolve));
    await previous;
    this.#release = release;
  }

  #endTurn(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  /** A statement waiting for another process's lock lets the queries queued behind it run meanwhile. */
  async #stepAside(ms: number): Promise<void> {
    this.#endTurn();
    await sleep(ms);
    await this.#takeTurn();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#takeTurn();
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    this.#endTurn();
  }

  /**
   * A transaction that may write takes the write lock at its start (BEGIN IMMEDIATE), waiting
   * out another process's write under the busy timeout. A deferred BEGIN that read first and
   * wrote after failed at once with SQLITE_BUSY_SNAPSHOT (a 503) whenever another process (a
   * second instance, a seed) committed in between: two instances given the same Idempotency-Key
   * at once answered 409 and 503. A read-only transaction stays deferred: it never waits.
   */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(settings.accessMode === 'read only' ? 'begin' : 'begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async destroy(): Promise<void> {
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
 * `forUpdate()` (or `forNoKeyUpdate()`) on either database. PostgreSQL takes the row locks; SQLite
 * has no row locks (a write transaction holds the whole file) and no `FOR UPDATE`, so here the
 * clause (and `SKIP LOCKED`) is left out.
 */
const ROW_LOCK_MODIFIERS = new Set(['ForUpdate', 'ForNoKeyUpdate', 'SkipLocked']);

class NodeSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitSelectQuery(node: SelectQueryNode): void {
    const endModifiers = node.endModifiers?.filter((m) => !ROW_LOCK_MODIFIERS.has(m.modifier ?? ''));
    super.visitSelectQuery(endModifiers?.length === node.endModifiers?.length ? node : { ...node, endModifiers });
  }
}

/** Kysely over Node's built-in SQLite: Kysely's SQLite adapter, its compiler without `FOR UPDATE`, our driver. */
export function nodeSqliteDialect(db: DatabaseSync): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new NodeSqliteDriver(db),
    createQueryCompiler: () => new NodeSqliteQueryCompiler(),
    createIntrospector: (kysely: Kysely<unknown>) => new SqliteIntrospector(kysely),
  };
}
