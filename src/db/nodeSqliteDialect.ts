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
import { SqliteCheckpointer, WRITER_CHECKPOINT_PAGES } from './sqliteCheckpointer.ts';
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
  #transaction: { kind: 'write' } | { kind: 'lone' } | { kind: 'read'; reader: Reader } | undefined;

  constructor(driver: NodeSqliteDriver) {
    this.#driver = driver;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const readers = this.#driver.readers;
    const transaction = this.#transaction;
    if (transaction?.kind === 'read' && readers) {
      return { rows: (await readers.queryOn(transaction.reader, compiled.sql, compiled.parameters as SQLInputValue[])) as R[] };
    }
    if (transaction && transaction.kind !== 'read') return this.#driver.writer.executeQuery<R>(compiled);
    // The one place a lone statement's connection is chosen: writes, and reads flagged bounded by
    // the code that built them (driverFlags.ts), on the writing connection; every other read on a
    // reader.
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
    const ownTurn = this.#transaction === undefined || this.#transaction.kind === 'read';
    if (ownTurn) await this.#driver.takeTurn();
    try {
      yield* this.#driver.writer.streamQuery<R>(compiled);
    } finally {
      if (ownTurn) await this.#driver.handOver();
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
    if (settings.accessMode === 'read only') {
      // No readers (an in-memory database): a deferred read transaction on the one connection.
      await this.#driver.takeTurn();
      try {
        await this.#driver.writer.executeQuery(CompiledQuery.raw('begin'));
        this.#transaction = { kind: 'lone' };
      } catch (error) {
        await this.#driver.handOver();
        throw error;
      }
      return;
    }
    // A transaction that may write holds the writing connection from its start to its end, as
    // a member of the commit group (CommitGroup below).
    await this.#driver.takeTurn({ join: true });
    try {
      await this.#driver.joinGroup();
      this.#transaction = { kind: 'write' };
    } catch (error) {
      await this.#driver.handOver();
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
    this.#transaction = undefined;
    if (transaction.kind === 'write') return this.#driver.leaveGroup(statement);
    try {
      await this.#driver.writer.executeQuery(CompiledQuery.raw(statement));
    } finally {
      await this.#driver.handOver();
    }
  }

  /** Kysely gives the connection back: anything it still held is let go. */
  async release(): Promise<void> {
    if (this.#transaction) await this.end('rollback');
  }
}

/**
 * Write transactions that follow one another on the writing connection while others wait their
 * turn: one SQLite transaction, each a savepoint in it, committed once for all (decision 0093).
 * A commit's cost is mostly the pages it writes to the WAL (a payment's row and its indexes'
 * leaves); consecutive members share those pages. A member is answered only after the commit.
 */
interface CommitGroup {
  startedAt: number;
  /** Members that released their savepoint: committed with the group. */
  released: number;
  /** Members that released their savepoint and wait for the commit. */
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

/** Bounds on how long a group's first member waits for its commit, and on its write lock's hold. */
export const GROUP_MAX_MEMBERS = 64;
export const GROUP_MAX_MS = 10;

/** Write transactions committed, and the commits they took (for /metrics: members per commit). */
export interface CommitTally {
  commits: number;
  transactions: number;
}

function lostTransaction(): Error {
  return new Error('SQLite rolled the write transaction back (an I/O error or a full disk): nothing of it was committed');
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
  /** Turns asked for and not yet given. */
  #waiting = 0;
  #group: CommitGroup | undefined;
  readonly #tally: CommitTally;
  readonly #groupMaxMs: number;
  #checkpointer: SqliteCheckpointer | undefined;

  constructor(db: DatabaseSync, options: SqliteDialectOptions) {
    this.#db = db;
    this.#tally = options.tally ?? { commits: 0, transactions: 0 };
    this.#groupMaxMs = options.groupMaxMs ?? GROUP_MAX_MS;
    this.writer = new NodeSqliteConnection(db, (ms) => this.#stepAside(ms));
    const path = db.location();
    this.readers =
      path && options.readers !== false ? new SqliteReaders({ path, statementTimeoutMs: options.statementTimeoutMs ?? 0, ...options.readers }) : undefined;
    // Serving (readers on): checkpoints on a thread of their own. A CLI command keeps SQLite's.
    if (path && this.readers) {
      db.exec(`pragma wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
      this.#checkpointer = new SqliteCheckpointer(path);
    }
  }

  async init(): Promise<void> {}

  /**
   * The writing connection's turn. Anything but a write transaction joining the commit group
   * first commits the group's open transaction, so no statement outside the group sees, or
   * joins, writes not yet committed (a failed commit is its members' answer, not this turn's).
   */
  async takeTurn({ join = false } = {}): Promise<void> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise((resolve) => (release = resolve));
    this.#waiting++;
    await previous;
    this.#waiting--;
    this.#release = release;
    if (!join) await this.#commitGroup().catch(() => {});
  }

  /** Ends a turn that committed nothing of its own: the group's transaction is committed now unless another turn is waiting to join it. */
  async handOver(): Promise<void> {
    try {
      if (this.#group && !this.#groupMayGrow(this.#group)) await this.#commitGroup().catch(() => {});
    } finally {
      this.#endTurn();
    }
  }

  #endTurn(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  /** The group may take more members: under GROUP_MAX_MEMBERS and groupMaxMs old. */
  #groupIsOpen(group: CommitGroup): boolean {
    return group.waiters.length < GROUP_MAX_MEMBERS && performance.now() - group.startedAt < this.#groupMaxMs;
  }

  #groupMayGrow(group: CommitGroup): boolean {
    return this.#waiting > 0 && this.#groupIsOpen(group);
  }

  /**
   * Opens the group's transaction if none is open, and a savepoint for this member. It takes
   * the write lock at its start (BEGIN IMMEDIATE), waiting out another process's write. A
   * deferred BEGIN that read first and wrote after failed at once with SQLITE_BUSY_SNAPSHOT (a
   * 503) whenever another process (a second instance, a seed) committed in between: two
   * instances given the same Idempotency-Key at once answered 409 and 503.
   */
  async joinGroup(): Promise<void> {
    if (this.#group && !this.writer.inTransaction) this.#failGroup(this.#group, lostTransaction());
    if (!this.#group) {
      await this.writer.executeQuery(CompiledQuery.raw('begin immediate'));
      this.#group = { startedAt: performance.now(), released: 0, waiters: [] };
    }
    await this.writer.executeQuery(CompiledQuery.raw('savepoint group_member'));
  }

  /**
   * Ends a member: a rollback goes back to its savepoint, leaving the others' writes; a commit
   * releases the savepoint and resolves only once the group's transaction has committed, by
   * this member when no other turn waits (or the group is full), else by a later one.
   */
  async leaveGroup(outcome: 'commit' | 'rollback'): Promise<void> {
    const group = this.#group;
    if (!group || !this.writer.inTransaction) {
      // SQLite rolled the whole transaction back (a full disk, an I/O error): every member's writes are gone.
      if (group) this.#failGroup(group, lostTransaction());
      this.#endTurn();
      if (outcome === 'commit') throw lostTransaction();
      return;
    }
    try {
      if (outcome === 'rollback') await this.writer.executeQuery(CompiledQuery.raw('rollback to group_member'));
      await this.writer.executeQuery(CompiledQuery.raw('release group_member'));
    } catch (error) {
      // This member's writes could not be set apart from the others': none of the group's may commit.
      if (this.writer.inTransaction) await this.writer.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
      this.#failGroup(group, error instanceof Error ? error : lostTransaction());
      this.#endTurn();
      throw error;
    }
    if (outcome === 'rollback') return this.handOver();
    group.released++;
    // One turn of the event loop before a young group commits: writes whose requests arrived meanwhile join it (decision 0098).
    if (this.#waiting === 0 && this.#groupIsOpen(group)) await new Promise((resolve) => setImmediate(resolve));
    if (this.#groupMayGrow(group)) {
      const committed = new Promise<void>((resolve, reject) => group.waiters.push({ resolve, reject }));
      this.#endTurn();
      return committed;
    }
    try {
      await this.#commitGroup();
    } finally {
      this.#endTurn();
    }
  }

  /** Commits the group's transaction, if one is open, and answers its members. */
  async #commitGroup(): Promise<void> {
    const group = this.#group;
    if (!group) return;
    this.#group = undefined;
    try {
      if (!this.writer.inTransaction) throw lostTransaction();
      await this.writer.executeQuery(CompiledQuery.raw('commit'));
      if (group.released > 0) this.#tally.commits++;
      this.#tally.transactions += group.released;
    } catch (error) {
      // A COMMIT that failed leaves the transaction open: end it before anyone else has the connection.
      if (this.writer.inTransaction) await this.writer.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
      for (const waiter of group.waiters) waiter.reject(error);
      throw error;
    }
    for (const waiter of group.waiters) waiter.resolve();
  }

  #failGroup(group: CommitGroup, error: Error): void {
    if (this.#group === group) this.#group = undefined;
    for (const waiter of group.waiters) waiter.reject(error);
  }

  /** One statement on the writing connection, in a turn of its own. */
  async onWriter<T>(run: (writer: NodeSqliteConnection) => Promise<T>): Promise<T> {
    await this.takeTurn();
    try {
      return await run(this.writer);
    } finally {
      await this.handOver();
    }
  }

  /** A statement waiting for another process's lock lets the queries queued behind it run meanwhile. */
  async #stepAside(ms: number): Promise<void> {
    this.#endTurn();
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
    await this.#checkpointer?.stop();
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
  /** Counted into as write transactions commit. */
  tally?: CommitTally;
  /** How old a commit group may grow before it commits (GROUP_MAX_MS); a test's own, where a loaded machine's pauses must not decide. */
  groupMaxMs?: number;
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
