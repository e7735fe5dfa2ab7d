import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { CheckpointerData } from './sqliteCheckpointWorker.ts';

/** How often the checkpointer copies what the WAL gained into the database file. */
export const CHECKPOINT_EVERY_MS = 50;

/**
 * The WAL pages after which the writing connection checkpoints itself (SQLite's own
 * `wal_autocheckpoint`, 1000 by default). The checkpointer has usually copied those pages
 * already, so that checkpoint finds little to copy; it is there to let the WAL start over (a
 * WAL is reset only by a writer, once every frame in it is in the database file) and as the
 * bound should the checkpointer fall behind.
 */
export const WRITER_CHECKPOINT_PAGES = 4000;

/**
 * Checkpoints on a thread of its own (decision 0093): copying WAL pages into the database file
 * and syncing it took a tenth to a third of the writing connection's time when the committing
 * request did it.
 */
export class SqliteCheckpointer {
  readonly #worker: Worker;

  constructor(path: string, everyMs = CHECKPOINT_EVERY_MS) {
    const data: CheckpointerData = { path, everyMs };
    this.#worker = new Worker(new URL('./sqliteCheckpointWorker.ts', import.meta.url), { workerData: data });
    // It must not keep the process alive, nor take it down: a failed checkpointer leaves the writer's own checkpoints.
    this.#worker.unref();
    this.#worker.on('error', () => {});
  }

  /** Lets the thread close its connection and end (terminated after 2 s). Held (ref) meanwhile: an unref'd wait alone would let the process exit mid-close. */
  async stop(): Promise<void> {
    this.#worker.ref();
    const exited = once(this.#worker, 'exit');
    let timer: NodeJS.Timeout | undefined;
    this.#worker.postMessage('stop');
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
    await this.#worker.terminate();
  }
}
