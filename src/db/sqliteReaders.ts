import type { SQLInputValue } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import type { ReaderReply, ReaderRequest } from './sqliteReaderWorker.ts';

/**
 * A statement that ran past the statement timeout (PG_STATEMENT_TIMEOUT_MS) on SQLite, or found
 * no reader free within it: the same 503 `database-timeout` as PostgreSQL's 57014
 * (databaseErrors.ts).
 */
export class StatementTimedOut extends Error {
  constructor(ms: number) {
    super(`the statement ran past the statement timeout (${ms} ms)`);
    this.name = 'StatementTimedOut';
  }
}

export interface ReadersOptions {
  /** The SQLite file (readers are connections of their own to it). */
  path: string;
  /** How long one statement may take, its wait for a free reader included; 0: no limit. */
  statementTimeoutMs: number;
  /** Readers running statements at once. */
  size?: number;
  /**
   * Readers given up on (past the limit) that may still be running their statement: node:sqlite
   * cannot interrupt a statement, and terminating a worker waits for its step to end. Each holds a
   * core and a WAL read mark meanwhile, so there are at most this many; with all taken, statements
   * wait for a reader until their own limit, then answer 503 (decision 0013).
   */
  maxAbandoned?: number;
}

/**
 * Two readers: the machine's SQLite work is one writer connection plus these, and a read is
 * mostly CPU (the file in the OS cache); more threads than cores only share them.
 */
export const DEFAULT_READERS = 2;
export const DEFAULT_MAX_ABANDONED = 2;

interface Pending {
  resolve: (rows: unknown[]) => void;
  reject: (error: Error) => void;
}

/** One worker thread with one read-only connection; one statement at a time (its holder's). */
export class Reader {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #failure: Error | undefined;
  /** Set when it exits (whether given up on or broken): its holder must not give it back. */
  gone = false;
  /** Given up on: its statement ran past the limit, and it ends once that statement returns. */
  abandoned = false;

  constructor(path: string, onExit: (reader: Reader) => void) {
    this.#worker = new Worker(new URL('./sqliteReaderWorker.ts', import.meta.url), { workerData: { path } });
    // An idle reader does not keep the process alive (a CLI command ends when its work does).
    this.#worker.unref();
    this.#worker.on('message', (reply: ReaderReply) => {
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) this.#worker.unref();
      if (reply.kind === 'rows') pending.resolve(reply.rows);
      else pending.reject(Object.assign(new Error(reply.message), { code: reply.code, errcode: reply.errcode, errstr: reply.errstr }));
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => {
      this.gone = true;
      this.#fail(new Error(`a SQLite reader thread exited (code ${code})`));
      onExit(this);
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  /** The rows of one statement; past `deadline` (performance.now()), StatementTimedOut and the reader is given up. */
  query(sql: string, parameters: SQLInputValue[], deadline: number | undefined, timeoutMs: number): Promise<unknown[]> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      this.#pending.set(id, {
        resolve: (rows) => {
          clearTimeout(timer);
          resolve(rows);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      if (deadline !== undefined) {
        timer = setTimeout(
          () => {
            this.#pending.delete(id);
            reject(new StatementTimedOut(timeoutMs));
          },
          Math.max(0, deadline - performance.now()),
        );
      }
      this.#worker.ref();
      this.#worker.postMessage({ id, sql, parameters } satisfies ReaderRequest);
    });
  }

  /** Gives up on its statement: the thread is ended as soon as its statement returns (see maxAbandoned). */
  abandon(): Promise<number> {
    this.abandoned = true;
    this.#fail(new Error('a SQLite reader was given up on'));
    this.#worker.unref();
    return this.#worker.terminate();
  }
}

interface Waiter {
  take: (reader: Reader) => void;
  refuse: (error: Error) => void;
}

/**
 * The readers of one SQLite file: reads (a list page, its count, the statements of a read-only
 * transaction) run there, each against a deadline, so no read holds the event loop, the one
 * writing connection, or runs on unbounded. Readers start when first needed.
 */
export class SqliteReaders {
  readonly #path: string;
  readonly timeoutMs: number;
  readonly #size: number;
  readonly #maxAbandoned: number;
  readonly #idle: Reader[] = [];
  /** Every reader whose thread has not ended. */
  readonly #all = new Set<Reader>();
  /** Readers that are there to be used (idle or held). */
  #live = 0;
  /** Given up on, still running their statement. */
  #abandoned = 0;
  readonly #waiters: Waiter[] = [];
  #closed = false;

  constructor(options: ReadersOptions) {
    this.#path = options.path;
    this.timeoutMs = options.statementTimeoutMs;
    this.#size = options.size ?? DEFAULT_READERS;
    this.#maxAbandoned = options.maxAbandoned ?? DEFAULT_MAX_ABANDONED;
  }

  /** When a statement issued now must have answered by (performance.now()), or undefined: no limit. */
  deadline(): number | undefined {
    return this.timeoutMs > 0 ? performance.now() + this.timeoutMs : undefined;
  }

  /** Threads started and not yet ended: the live readers and the abandoned ones. */
  get threads(): number {
    return this.#live + this.#abandoned;
  }

  #start(): Reader {
    this.#live++;
    const reader = new Reader(this.#path, (gone) => this.#exited(gone));
    this.#all.add(reader);
    return reader;
  }

  #exited(reader: Reader): void {
    const idle = this.#idle.indexOf(reader);
    if (idle >= 0) this.#idle.splice(idle, 1);
    this.#all.delete(reader);
    if (reader.abandoned) this.#abandoned--;
    else this.#live--;
    // One that broke (it failed to open the file, say) is started again only for a statement
    // waiting: never in a loop of its own.
    if (reader.abandoned || this.#waiters.length > 0) this.#serveWaiters();
  }

  /**
   * Keeps `size` readers started (a thread takes tens of ms to start: not on a request's time
   * when it can be helped), as long as the abandoned ones leave room, and hands idle ones to
   * the statements waiting, first come first served.
   */
  #serveWaiters(): void {
    if (this.#closed) return;
    while (this.#live < this.#size && this.threads < this.#size + this.#maxAbandoned) this.#idle.push(this.#start());
    while (this.#waiters.length > 0 && this.#idle.length > 0) (this.#waiters.shift() as Waiter).take(this.#idle.shift() as Reader);
  }

  /** A reader for the caller alone, waited for until `deadline`; give it back with `release`. */
  acquire(deadline: number | undefined): Promise<Reader> {
    if (this.#closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<Reader>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        take: (reader) => {
          clearTimeout(timer);
          resolve(reader);
        },
        refuse: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.#waiters.push(waiter);
      if (deadline !== undefined) {
        timer = setTimeout(
          () => {
            const at = this.#waiters.indexOf(waiter);
            if (at < 0) return;
            this.#waiters.splice(at, 1);
            reject(new StatementTimedOut(this.timeoutMs));
          },
          Math.max(0, deadline - performance.now()),
        );
      }
      this.#serveWaiters();
    });
  }

  release(reader: Reader): void {
    if (reader.gone || reader.abandoned || this.#closed) return;
    this.#idle.push(reader);
    this.#serveWaiters();
  }

  /** Gives a reader up (its statement ran past the limit): it no longer counts as live. */
  abandon(reader: Reader): void {
    if (reader.abandoned || reader.gone) return;
    this.#live--;
    this.#abandoned++;
    void reader.abandon();
    this.#serveWaiters();
  }

  /** The rows of one statement on any free reader, within the statement timeout. */
  async query(sql: string, parameters: SQLInputValue[]): Promise<unknown[]> {
    const deadline = this.deadline();
    const reader = await this.acquire(deadline);
    try {
      return await this.queryOn(reader, sql, parameters, deadline);
    } finally {
      this.release(reader);
    }
  }

  /** The rows of one statement on a reader already held, within `deadline`. */
  async queryOn(reader: Reader, sql: string, parameters: SQLInputValue[], deadline = this.deadline()): Promise<unknown[]> {
    try {
      return await reader.query(sql, parameters, deadline, this.timeoutMs);
    } catch (error) {
      if (error instanceof StatementTimedOut) this.abandon(reader);
      throw error;
    }
  }

  /** Ends every reader; one still inside a statement ends when that statement returns (not waited for). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.refuse(new Error('the database is closed'));
    this.#idle.length = 0;
    for (const reader of this.#all) void reader.abandon();
  }
}
