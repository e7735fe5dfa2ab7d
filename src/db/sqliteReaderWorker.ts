import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { TextBoundedMap } from './textBoundedMap.ts';

/** What a reader's owner asks (sqliteReaders.ts): the rows of one statement. */
export interface ReaderRequest {
  id: number;
  sql: string;
  parameters: SQLInputValue[];
}

/** The rows, or the error as node:sqlite made it (its code and SQLite's result code kept). */
export type ReaderReply =
  | { id: number; kind: 'rows'; rows: unknown[] }
  | { id: number; kind: 'failed'; message: string; code?: unknown; errcode?: unknown; errstr?: unknown };

const port = parentPort!;

// A read-only connection of its own: in WAL mode it reads while the app's connection writes.
// Waiting for a lock blocks only this thread, never the event loop of the requests.
const database = new DatabaseSync((workerData as { path: string }).path, { readOnly: true, timeout: 5_000 });

// The same SQL text comes back for every call of one query shape (bounded by text as well: textBoundedMap.ts).
const statements = new TextBoundedMap<StatementSync>(500, 4_000_000);
function prepare(sql: string): StatementSync {
  let statement = statements.get(sql);
  if (!statement) {
    statement = database.prepare(sql);
    statements.set(sql, statement, sql.length);
  }
  return statement;
}

port.on('message', ({ id, sql, parameters }: ReaderRequest) => {
  let reply: ReaderReply;
  try {
    const statement = prepare(sql);
    // BEGIN, COMMIT and ROLLBACK of a read transaction yield no columns: run, not read.
    if (statement.columns().length === 0) {
      statement.run(...parameters);
      reply = { id, kind: 'rows', rows: [] };
    } else reply = { id, kind: 'rows', rows: statement.all(...parameters) };
  } catch (error) {
    const { message, code, errcode, errstr } = error as { message: string; code?: unknown; errcode?: unknown; errstr?: unknown };
    reply = { id, kind: 'failed', message, code, errcode, errstr };
  }
  port.postMessage(reply);
});
