import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

/** What the snapshot's owner asks (sqliteSnapshot in snapshotReader.ts). */
export type SnapshotRequest =
  | { id: number; kind: 'all' | 'lines'; sql: string; parameters: SQLInputValue[] }
  /** The owner took a chunk of `lines`: one more may be made. */
  | { id: number; kind: 'more' }
  /** The owner left `lines` midway. */
  | { id: number; kind: 'stop' }
  | { kind: 'close' };

/** What the worker answers. A `lines` request gets chunks (moved, not copied), then `end`. */
export type SnapshotReply =
  | { kind: 'opened'; snapshotAt: string }
  | { kind: 'closed' }
  | { id: number; kind: 'rows'; rows: unknown[] }
  | { id: number; kind: 'chunk'; chunk: Uint8Array }
  | { id: number; kind: 'end' }
  | { id: number; kind: 'failed'; message: string };

/** Bytes per chunk handed over (a few hundred records of JSON). */
const LINE_CHUNK_BYTES = 128 * 1024;
/** Chunks made ahead of the owner: one being sent while the next is read. */
const CHUNKS_AHEAD = 2;

const port = parentPort!;
const reply = (message: SnapshotReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

// The read transaction takes its snapshot at its first read; in WAL mode it keeps it while the
// app's own connection goes on writing.
const database = new DatabaseSync((workerData as { path: string }).path, { readOnly: true, timeout: 5000 });
database.exec('begin');
database.prepare('select count(*) from sqlite_schema').get();
reply({ kind: 'opened', snapshotAt: new Date().toISOString() });

/** A running `lines`: chunks it may still make, and what wakes it when it may make more or must stop. */
interface Running {
  credit: number;
  stopped: boolean;
  wake?: () => void;
}

const running = new Map<number, Running>();

async function lines(id: number, sql: string, parameters: SQLInputValue[]) {
  const state: Running = { credit: CHUNKS_AHEAD, stopped: false };
  running.set(id, state);
  const send = async (chunk: Buffer, at: number) => {
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, at);
    reply({ id, kind: 'chunk', chunk: bytes }, [chunk.buffer as ArrayBuffer]);
    state.credit--;
    while (state.credit <= 0 && !state.stopped) await new Promise<void>((resolve) => (state.wake = resolve));
  };
  try {
    const statement = database.prepare(sql);
    statement.setReturnArrays(true);
    let chunk = Buffer.alloc(LINE_CHUNK_BYTES);
    let at = 0;
    for (const row of statement.iterate(...parameters) as Iterable<unknown[]>) {
      const value = row[0] as string | Uint8Array;
      // A text is encoded straight into the chunk; the most bytes a UTF-16 unit takes is 3.
      const room = typeof value === 'string' ? value.length * 3 + 1 : value.length + 1;
      if (chunk.length - at < room) {
        if (at > 0) await send(chunk, at);
        if (state.stopped) return;
        // A chunk of its own each time (never from Node's shared pool): it is moved to the owner.
        chunk = Buffer.alloc(Math.max(LINE_CHUNK_BYTES, room));
        at = 0;
      }
      if (typeof value === 'string') at += chunk.write(value, at, 'utf8');
      else {
        chunk.set(value, at);
        at += value.length;
      }
      chunk[at++] = 0x0a;
    }
    if (at > 0) await send(chunk, at);
    if (!state.stopped) reply({ id, kind: 'end' });
  } finally {
    running.delete(id);
  }
}

port.on('message', (request: SnapshotRequest) => {
  try {
    if (request.kind === 'close') {
      database.exec('rollback');
      database.close();
      reply({ kind: 'closed' });
      return;
    }
    if (request.kind === 'more' || request.kind === 'stop') {
      const state = running.get(request.id);
      if (!state) return;
      if (request.kind === 'more') state.credit++;
      else state.stopped = true;
      state.wake?.();
      return;
    }
    if (request.kind === 'all') {
      reply({ id: request.id, kind: 'rows', rows: database.prepare(request.sql).all(...request.parameters) });
      return;
    }
    lines(request.id, request.sql, request.parameters).catch((error: Error) => reply({ id: request.id, kind: 'failed', message: error.message }));
  } catch (error) {
    if ('id' in request) reply({ id: request.id, kind: 'failed', message: (error as Error).message });
    else throw error;
  }
});
