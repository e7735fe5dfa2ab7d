/** Bodies below this size are allocated as usual: the pool is for big pages' buffers. */
const POOLED_FROM = 256 * 1024;
/** Bigger than this is not kept: one odd page must not hold that much memory for good. */
const POOLED_UP_TO = 16 * 1024 * 1024;

/**
 * Big response buffers, given back once the response is sent and handed out again. A new 2.6 MB Buffer per page
 * is memory outside V8's heap, freed only when V8 collects it and counted toward its external-memory limit: big
 * pages at a steady rate kept starting full mark-compacts that held the event loop. Handing the same few out again
 * allocates nothing (decision 0007, with the figures re-measured against the plain code).
 */
export class BodyBufferPool {
  readonly #free: Buffer[] = [];
  readonly #keep: number;

  /** `keep`: how many free buffers it holds at most. */
  constructor(keep = 4) {
    this.#keep = keep;
  }

  /** A buffer of at least `bytes` bytes, whose content is anything. */
  take(bytes: number): Buffer {
    if (bytes >= POOLED_FROM && bytes <= POOLED_UP_TO) {
      const i = this.#free.findIndex((b) => b.length >= bytes);
      if (i >= 0) return this.#free.splice(i, 1)[0];
    }
    return Buffer.allocUnsafe(bytes);
  }

  /** Gives back a buffer that nothing reads or writes any more (the response using it has been sent). */
  give(buffer: Buffer): void {
    if (buffer.length < POOLED_FROM || buffer.length > POOLED_UP_TO || this.#free.includes(buffer)) return;
    if (this.#free.length < this.#keep) {
      this.#free.push(buffer);
      return;
    }
    // Full: keep the bigger buffers, which serve every size.
    let smallest = 0;
    for (let i = 1; i < this.#free.length; i++) if (this.#free[i].length < this.#free[smallest].length) smallest = i;
    if (this.#free[smallest].length < buffer.length) this.#free[smallest] = buffer;
  }

  /** How many free buffers it holds (for tests). */
  get size(): number {
    return this.#free.length;
  }
}
