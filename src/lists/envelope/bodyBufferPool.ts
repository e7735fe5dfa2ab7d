/** Bodies below this size are allocated as usual: the pool is for big pages' buffers. */
const POOLED_FROM = 256 * 1024;
/** Bigger than this is not kept: one odd page must not hold that much memory for good. */
const POOLED_UP_TO = 16 * 1024 * 1024;

/**
 * Big response buffers, given back once the response is sent and handed out again. A 5000-row
 * page is a 2.6 MB Buffer, memory outside V8's heap that V8 frees only when it collects the
 * Buffer object; each new one counted toward its external-memory limit, and 60 pages a second
 * started a full mark-compact every ~170 ms (~40 in 8 s, 10-27 ms each, the event loop held).
 * Handing the same few buffers out again allocates nothing: 2 mark-compacts in the same 8 s.
 * Re-measured against a new buffer per page at 100k (docs/performance.md, "The tricks re-measured
 * against the plain code"): pages of 1000-2000 rows 1.09 to 1.97× the pages per second; 5000-row
 * pages on a saturated machine 0.85 to 1.15×.
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
