import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'minor' }) => void;

/**
 * V8's collector, without starting node with --expose-gc (npm start, the bin, the Docker image
 * and WORKERS all start the server differently): with the flag set, a new context has `gc`, and
 * it collects the isolate's one heap. Jest reaches it the same way for --logHeapUsage.
 */
function collector(): Collect {
  const exposed = (globalThis as { gc?: Collect }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Collect;
}

/** Reached on the first collection, not at start-up: a server that never exports never makes the context. */
let collect: Collect | undefined;

/**
 * A young-generation collection after every `everyBytes` handed on. An export hands the socket
 * hundreds of MB in Buffers (COPY's, or the SQLite worker's) while allocating almost nothing
 * else, so V8 seldom collects, and every Buffer's memory waits for that: the server grew by
 * +85 to +107 MB over idle during an uncompressed NDJSON export of 1M payments. A scavenge finds
 * little alive and takes about a millisecond; after one every 16 MiB the same export grew it by
 * +45 to +50 (SQLite) and +44 to +53 MB (PostgreSQL), and ran faster, reusing memory instead of faulting in
 * new pages. Every 4 MiB (the default): gzip holds chunks in its queues long enough that at 16
 * MiB some were promoted at each sweep, and from a server's second gzip export on V8 ran a
 * mark-compact every 60-80 ms for the promoted Buffers' memory (about 50 an export, 1M payments:
 * 5.9-6.9 s of server CPU against 4.0 for the first); at 4 MiB none (3.8-3.9 s, every time),
 * and the uncompressed export is as fast as before. Re-measured against no sweep at 100k
 * (docs/performance.md, "The tricks re-measured against the plain code"): NDJSON exports 1.26 to
 * 1.72× as fast in five cases of six, the server growing 3-7× less on PostgreSQL.
 */
export class YoungGenerationSweep {
  readonly #everyBytes: number;
  #since = 0;

  constructor(everyBytes = 4 * 1024 * 1024) {
    this.#everyBytes = everyBytes;
  }

  /** Counts `bytes` handed on; collects once they add up to `everyBytes`. */
  add(bytes: number): void {
    this.#since += bytes;
    if (this.#since < this.#everyBytes) return;
    this.#since = 0;
    collect ??= collector();
    collect({ type: 'minor' });
  }
}
