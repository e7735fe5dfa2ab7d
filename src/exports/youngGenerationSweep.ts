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
 * hundreds of MB in Buffers while allocating little else, so V8 seldom collects and the server grows;
 * a scavenge is about a millisecond. 4 MiB by default, as gzip holds chunks long enough that larger
 * steps promote them (decision 0008; docs/performance.md, "The tricks re-measured").
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
