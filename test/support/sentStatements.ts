import pg from 'pg';
import { StatementAfterBegin } from '../../src/db/statementAfterBegin.ts';

/** One statement as the service handed it to node-postgres, with the request it was sent for. */
export interface SentStatement {
  text: string;
  values: readonly unknown[];
  /** The label of the request in flight when it was sent (`forRequest`); undefined: sent while none was (timers, the sender). */
  request: string | undefined;
  /** `COPY … FROM STDIN`: the text of the rows it sent, as they went (tab-separated, a line each). */
  copied?: string[];
  /** Sent with its transaction's BEGIN, in the same round trip (src/db/statementAfterBegin.ts). */
  afterBegin: boolean;
  /** Sent as a named prepared statement (src/db/preparedStatements.ts): parsed and planned once per connection. */
  named: boolean;
}

/** A COPY FROM stream (pg-copy-streams): a Writable whose chunks are the rows' text. */
interface CopyStream {
  _write(chunk: Buffer, encoding: string, callback: () => void): void;
  _writev?(chunks: Array<{ chunk: Buffer }>, callback: () => void): void;
}

/** Keeps a copy of every chunk the stream writes, as it writes it. */
function noteCopiedRows(stream: CopyStream, copied: string[]): void {
  const write = stream._write.bind(stream);
  stream._write = (chunk, encoding, callback) => {
    copied.push(chunk.toString('utf8'));
    write(chunk, encoding, callback);
  };
  const writev = stream._writev?.bind(stream);
  if (writev)
    stream._writev = (chunks, callback) => {
      for (const { chunk } of chunks) copied.push(chunk.toString('utf8'));
      writev(chunks, callback);
    };
}

/** The request in flight: requests are sent one at a time, so whatever is sent meanwhile is its work. */
let inFlight: string | undefined;
const listeners = new Set<(statement: SentStatement) => void>();
let installed = false;

/**
 * Every statement any node-postgres client in this process sends, with the request in flight:
 * Client.query is where Kysely, the prepared-statement pool, the row streamer and COPY all hand
 * their SQL over (string, config or submittable, each carries `text`). Attributed by time, not
 * by async context: a write waits for the write lock and then runs in the context of whoever
 * released it, and an export's rows are read in the stream's. So send one request at a time, with
 * nothing running in the background meanwhile (no webhook sender), for the attribution to hold.
 * A `COPY … FROM STDIN` keeps the rows' text too: its rows are data, not SQL.
 */
export function recordSentStatements(): { statements: SentStatement[]; stop(): void } {
  if (!installed) {
    installed = true;
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, config: unknown, values?: unknown, callback?: unknown) {
      if (listeners.size > 0) {
        const given = config as { text?: unknown; values?: unknown[]; name?: unknown } | string;
        const text = typeof given === 'string' ? given : given?.text;
        if (typeof text === 'string') {
          const statement: SentStatement = {
            text,
            values: (Array.isArray(values) ? values : typeof given === 'object' ? given.values : undefined) ?? [],
            request: inFlight,
            afterBegin: given instanceof StatementAfterBegin,
            named: typeof given === 'object' && typeof given.name === 'string',
          };
          if (/^copy .* from stdin/is.test(text) && typeof (given as Partial<CopyStream>)._write === 'function') {
            statement.copied = [];
            noteCopiedRows(given as unknown as CopyStream, statement.copied);
          }
          for (const listener of listeners) listener(statement);
        }
      }
      return (query as (...args: unknown[]) => unknown).call(this, config, values, callback);
    } as typeof query;
  }
  const statements: SentStatement[] = [];
  const listener = (statement: SentStatement) => statements.push(statement);
  listeners.add(listener);
  return { statements, stop: () => listeners.delete(listener) };
}

/** Runs `work` (one HTTP exchange, awaited to its last byte) as the request `label`: what is sent meanwhile is attributed to it. */
export async function forRequest<T>(label: string, work: () => Promise<T>): Promise<T> {
  if (inFlight !== undefined) throw new Error(`${label} sent while ${inFlight} is in flight: one request at a time`);
  inFlight = label;
  try {
    return await work();
  } finally {
    inFlight = undefined;
  }
}
