import { setImmediate as nextTurn } from 'node:timers/promises';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Db } from './database.ts';
import { MAX_STRETCH_MS } from './nodeSqliteDialect.ts';

const { escapeLiteral } = pg;

/** SQLite `lines`: bytes per chunk handed on (a few hundred records of JSON). */
const LINE_CHUNK_BYTES = 128 * 1024;

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
   * The one column of a statement, each value followed by a newline, as bytes, in chunks: no
   * string or row object is made per value. PostgreSQL: the text as the server sends it
   * (COPY … TO STDOUT, with no statement timeout: the reader paces it), in chunks of whatever
   * size they arrive; stopping the iteration midway
   * ends the connection (a COPY cannot be left any other way) and `close()` then only gives it
   * up. SQLite: each value (a row as an array, no object) encoded or copied straight into chunks
   * of LINE_CHUNK_BYTES, read in stretches of at most MAX_STRETCH_MS. The values must hold no raw line
   * break, as JSON text never does.
   */
  lines(query: CompiledQuery): AsyncGenerator<Buffer>;
  close(): Promise<void>;
}

export interface SnapshotOptions {
  /** PostgreSQL `statement_timeout` for the snapshot's statements (ms); 0: none. */
  statementTimeoutMs: number;
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
        let complete = false;
        try {
          for await (const chunk of stream) yield chunk as Buffer;
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
 * SQLite: a second, read-only connection to the same file in a read transaction. In WAL mode it
 * keeps its snapshot while the app's own connection goes on writing. node:sqlite is synchronous,
 * so rows are read in stretches of at most MAX_STRETCH_MS, yielding to the event loop between
 * them (as the app's driver does).
 */
function sqliteSnapshot(main: DatabaseSync): SnapshotReader {
  const path = main.location();
  if (!path) throw new Error('A snapshot needs a SQLite file; an in-memory database has no second connection.');
  const database = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
  try {
    database.exec('begin');
    // The read transaction takes its snapshot at its first read.
    database.prepare('select count(*) from sqlite_schema').get();
  } catch (error) {
    database.close();
    throw error;
  }
  const snapshotAt = new Date().toISOString();
  let closed = false;
  return {
    snapshotAt,
    async all<R>(query: CompiledQuery) {
      return database.prepare(query.sql).all(...(query.parameters as SQLInputValue[])) as R[];
    },
    async *lines(query: CompiledQuery) {
      const statement = database.prepare(query.sql);
      statement.setReturnArrays(true);
      let chunk = Buffer.allocUnsafe(LINE_CHUNK_BYTES);
      let at = 0;
      let stretchStarted = performance.now();
      let count = 0;
      for (const row of statement.iterate(...(query.parameters as SQLInputValue[])) as Iterable<unknown[]>) {
        const value = row[0] as string | Uint8Array;
        // A text is encoded straight into the chunk; the most bytes a UTF-16 unit takes is 3.
        const room = typeof value === 'string' ? value.length * 3 + 1 : value.length + 1;
        if (chunk.length - at < room) {
          if (at > 0) yield chunk.subarray(0, at);
          chunk = Buffer.allocUnsafe(Math.max(LINE_CHUNK_BYTES, room));
          at = 0;
        }
        if (typeof value === 'string') at += chunk.write(value, at, 'utf8');
        else {
          chunk.set(value, at);
          at += value.length;
        }
        chunk[at++] = 0x0a;
        if ((++count & 63) === 0 && performance.now() - stretchStarted > MAX_STRETCH_MS) {
          yield chunk.subarray(0, at);
          chunk = Buffer.allocUnsafe(LINE_CHUNK_BYTES);
          at = 0;
          await nextTurn();
          stretchStarted = performance.now();
        }
      }
      if (at > 0) yield chunk.subarray(0, at);
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        database.exec('rollback');
      } finally {
        database.close();
      }
    },
  };
}

export async function openSnapshot(db: Db, options: SnapshotOptions): Promise<SnapshotReader> {
  return db.native.dialect === 'postgres' ? postgresSnapshot(db.native.pool, options) : sqliteSnapshot(db.native.database);
}
