import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Db } from './database.ts';
import type { SnapshotReply, SnapshotRequest } from './sqliteSnapshotWorker.ts';
import { boundSilence } from './copySilence.ts';
import { answersOnNewConnection } from './databaseAnswers.ts';
import { giveUpConnection } from './statementDeadline.ts';

const { escapeLiteral } = pg;

/**
 * One consistent, read-only view of the database for a long read (an export): every statement
 * sees the data as of the first one, however long the reading takes. It holds a connection of
 * its own, so the app's other requests (and writers) go on meanwhile; `close()` gives it back
 * and must always be called.
 */
export interface SnapshotReader {
  /** When the snapshot was taken (ISO 8601, UTC). */
  snapshotAt: string;
  /** All rows of a short statement (a count). */
  all<R>(query: CompiledQuery): Promise<R[]>;
  /**
   * The one column of a statement, each value followed by a newline, as bytes in chunks, with no
   * string or row object per value (decision 0008). PostgreSQL: COPY … TO STDOUT, paced by the
   * reader; stopping midway ends the connection. SQLite: on the snapshot's worker, in 128 KiB
   * chunks. The values must hold no raw line break, as JSON text never does.
   */
  lines(query: CompiledQuery): AsyncGenerator<Buffer>;
  close(): Promise<void>;
}

export interface SnapshotOptions {
  /** PostgreSQL `statement_timeout` for the snapshot's statements (ms); 0: none. */
  statementTimeoutMs: number;
  /** PostgreSQL: after this long without a COPY's next bytes, whether the database still answers is asked (copySilence.ts); unset: never. */
  quietMs?: number;
}

/**
 * A statement's `$n` placeholders written as literals: COPY takes no parameters. Strings go
 * through node-postgres' `escapeLiteral` (quotes doubled, backslashes escaped in an E'' string);
 * anything but strings, finite numbers and booleans is refused rather than guessed at.
 */
export function inlineParameters(query: CompiledQuery): string {
  return query.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const value: unknown = query.parameters[Number(n) - 1];
    if (typeof value === 'string') return escapeLiteral(value);
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
    throw new Error(`cannot write parameter $${n} (${typeof value}) as a literal`);
  });
}

/**
 * COPY's CSV form with a delimiter and a quote that JSON text never holds raw (JSON escapes
 * every character below U+0020), so a value is written as it is, unquoted, then a newline.
 */
const RAW_LINES = "with (format csv, delimiter E'\\x01', quote E'\\x02')";

/**
 * PostgreSQL: a pooled connection in a read-only REPEATABLE READ transaction (the snapshot is
 * taken by its first statement); long reads are one COPY, paced by its reader through the
 * socket's back-pressure.
 */
async function postgresSnapshot(pool: pg.Pool, options: SnapshotOptions): Promise<SnapshotReader> {
  const client = await pool.connect();
  let released = false;
  /** A COPY was left midway: the connection is mid-protocol and can only be ended. */
  let abandoned = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    client.release(error);
  };
  try {
    await client.query('begin isolation level repeatable read read only');
    // SET cannot take a parameter; the value is a whole number from the configuration.
    const timeoutMs = Math.max(0, Math.floor(options.statementTimeoutMs));
    await client.query(`set local statement_timeout = ${timeoutMs}`);
    const { rows } = await client.query<{ at: string }>('select statement_timestamp() as at');
    return {
      snapshotAt: new Date(rows[0].at).toISOString(),
      async all<R>(query: CompiledQuery) {
        return (await client.query(query.sql, query.parameters as unknown[])).rows as R[];
      },
      async *lines(query: CompiledQuery) {
        const text = `copy (${inlineParameters(query)}) to stdout ${RAW_LINES}`;
        // The whole COPY is one statement, paced by whoever reads it: a statement timeout would cut
        // a healthy export to a slow client.
        await client.query('set local statement_timeout = 0');
        const stream = client.query(copyTo(text));
        const quietMs = options.quietMs;
        const chunks: AsyncIterable<Buffer> = quietMs
          ? boundSilence(stream, {
              quietMs,
              stillAnswering: () => answersOnNewConnection(pool, quietMs),
              giveUp: (error) => giveUpConnection(client, error),
            })
          : stream;
        let complete = false;
        try {
          for await (const chunk of chunks) yield chunk;
          complete = true;
          await client.query(`set local statement_timeout = ${timeoutMs}`);
        } finally {
          if (!complete) {
            abandoned = true;
            stream.destroy();
          }
        }
      },
      async close() {
        if (released) return;
        // Ending the connection is what stops the COPY on the server at once.
        if (abandoned) return release(new Error('an export was left in the middle of a COPY'));
        try {
          await client.query('rollback');
          release();
        } catch (error) {
          // A connection that cannot even roll back is not given to anyone else.
          release(error as Error);
        }
      },
    };
  } catch (error) {
    release(error as Error);
    throw error;
  }
}

/**
 * SQLite: a second, read-only connection to the same file, in a read transaction, on a worker thread
 * of its own (sqliteSnapshotWorker.ts), keeping its WAL snapshot while the app goes on writing.
 * node:sqlite is synchronous, so on the request thread an export's reads held every other request
 * (decision 0008); chunks are moved over as made, at most two ahead of the reader.
 */
async function sqliteSnapshot(main: DatabaseSync): Promise<SnapshotReader> {
  const path = main.location();
  if (!path) throw new Error('A snapshot needs a SQLite file; an in-memory database has no second connection.');
  const worker = new Worker(new URL('./sqliteSnapshotWorker.ts', import.meta.url), { workerData: { path } });
  const handlers = new Map<number, (reply: SnapshotReply) => void>();
  let lifecycle: ((reply: SnapshotReply | Error) => void) | undefined;
  let failure: Error | undefined;
  let nextId = 1;
  const fail = (error: Error) => {
    failure ??= error;
    lifecycle?.(error);
    for (const handler of handlers.values()) handler({ id: 0, kind: 'failed', message: error.message });
  };
  worker.on('message', (reply: SnapshotReply) => {
    if ('id' in reply) handlers.get(reply.id)?.(reply);
    else lifecycle?.(reply);
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the snapshot's worker exited (code ${code})`)));
  /** The next opened/closed reply (or the worker's failure). */
  const lifecycleReply = () =>
    new Promise<SnapshotReply>((resolve, reject) => {
      if (failure) return reject(failure);
      lifecycle = (reply) => (reply instanceof Error ? reject(reply) : resolve(reply));
    });
  let opened: SnapshotReply;
  try {
    opened = await lifecycleReply();
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  const request = (message: SnapshotRequest) => {
    if (failure) throw failure;
    worker.postMessage(message);
  };
  let closed = false;
  return {
    snapshotAt: (opened as { snapshotAt: string }).snapshotAt,
    all<R>(query: CompiledQuery) {
      const id = nextId++;
      return new Promise<R[]>((resolve, reject) => {
        handlers.set(id, (reply) => {
          handlers.delete(id);
          if (reply.kind === 'rows') resolve(reply.rows as R[]);
          else reject(new Error(reply.kind === 'failed' ? reply.message : `unexpected ${reply.kind}`));
        });
        request({ id, kind: 'all', sql: query.sql, parameters: query.parameters as SQLInputValue[] });
      });
    },
    async *lines(query: CompiledQuery) {
      const id = nextId++;
      const arrived: Array<SnapshotReply> = [];
      let wake: (() => void) | undefined;
      handlers.set(id, (reply) => {
        arrived.push(reply);
        wake?.();
      });
      let ended = false;
      try {
        request({ id, kind: 'lines', sql: query.sql, parameters: query.parameters as SQLInputValue[] });
        for (;;) {
          while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          const reply = arrived.shift() as SnapshotReply;
          if (reply.kind === 'end') {
            ended = true;
            return;
          }
          if (reply.kind !== 'chunk') {
            ended = true;
            throw new Error(reply.kind === 'failed' ? reply.message : `unexpected ${reply.kind}`);
          }
          // Taken: the worker may make one more while this one is written.
          request({ id, kind: 'more' });
          yield Buffer.from(reply.chunk.buffer, reply.chunk.byteOffset, reply.chunk.byteLength);
        }
      } finally {
        handlers.delete(id);
        if (!ended && !failure) worker.postMessage({ id, kind: 'stop' } satisfies SnapshotRequest);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        if (!failure) {
          const done = lifecycleReply();
          worker.postMessage({ kind: 'close' } satisfies SnapshotRequest);
          await done;
        }
      } finally {
        worker.removeAllListeners('exit');
        await worker.terminate();
      }
    },
  };
}

export async function openSnapshot(db: Db, options: SnapshotOptions): Promise<SnapshotReader> {
  if (db.native.dialect === 'sqlite') return sqliteSnapshot(db.native.database);
  return postgresSnapshot(db.native.pool, db.unansweredAfterMs ? { quietMs: db.unansweredAfterMs, ...options } : options);
}
