import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

/** What the checkpointer's owner passes (sqliteCheckpointer.ts). */
export interface CheckpointerData {
  path: string;
  everyMs: number;
}

const { path, everyMs } = workerData as CheckpointerData;
// A connection of its own: a PASSIVE checkpoint copies committed WAL frames into the database
// file beside the writer, never waiting for a lock (busy: try again next time).
const database = new DatabaseSync(path, { timeout: 0 });
const checkpoint = database.prepare('pragma wal_checkpoint(passive)');

const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // Another checkpoint is running (a second instance's): its work is done either way.
  }
}, everyMs);

parentPort!.on('message', (message: 'stop') => {
  if (message !== 'stop') return;
  clearInterval(timer);
  database.close();
  parentPort!.close();
});
