import type { BodyBufferPool } from './bodyBufferPool.ts';
import type { PageFrame } from './buildEnvelope.ts';

const HEAD = Buffer.from('{"data":[');
/** The most UTF-8 bytes one UTF-16 code unit takes. */
const MAX_BYTES_PER_UNIT = 3;

/**
 * The bytes of an envelope whose rows are already JSON text, written row by row as they arrive: no re-parsing,
 * and a driver's row strings die young instead of living, all 5000 of them, until the page ends. Each row is
 * encoded straight into one buffer sized for mostly-ASCII text and grown when it is not; joining the rows first,
 * or measuring each row's bytes first, cost more (decision 0007).
 */
export class EnvelopeWriter {
  #body: Buffer;
  #at: number;
  #pool: BodyBufferPool | undefined;
  /** How many rows were written. */
  count = 0;

  /**
   * `bytes`: what the rows are expected to take (the buffer grows past it when they take more);
   * `pool`: where its buffer comes from, and goes back to on release().
   */
  constructor(bytes: number, pool?: BodyBufferPool) {
    this.#pool = pool;
    const size = HEAD.length + bytes + 1024;
    this.#body = pool ? pool.take(size) : Buffer.allocUnsafe(size);
    this.#at = HEAD.copy(this.#body, 0);
  }

  /** Room for `bytes` more bytes, in a bigger buffer when needed. */
  #room(bytes: number): void {
    if (this.#body.length - this.#at >= bytes) return;
    const size = Math.max(this.#body.length * 2, this.#at + bytes + 1024);
    const bigger = this.#pool ? this.#pool.take(size) : Buffer.allocUnsafe(size);
    this.#body.copy(bigger, 0, 0, this.#at);
    this.#pool?.give(this.#body);
    this.#body = bigger;
  }

  /** Appends one row's JSON text. */
  add(row: string): void {
    // write() never splits a character, but it stops short when the buffer is: make room first.
    this.#room(row.length * MAX_BYTES_PER_UNIT + 1);
    if (this.count > 0) this.#body[this.#at++] = 0x2c; // ,
    this.#at += this.#body.write(row, this.#at, 'utf8');
    this.count++;
  }

  /** The whole envelope, its `links` and `meta` after the rows: a view of the writer's buffer. */
  finish(frame: PageFrame): Buffer {
    const tail = Buffer.from(`],"links":${JSON.stringify(frame.links)},"meta":${JSON.stringify(frame.meta)}}`);
    this.#room(tail.length);
    const end = this.#at + tail.copy(this.#body, this.#at);
    return this.#body.subarray(0, end);
  }

  /** Gives the buffer back to the pool: only once nothing reads what finish() returned any more. */
  release(): void {
    this.#pool?.give(this.#body);
    this.#pool = undefined;
  }
}

/** The envelope of rows already at hand (see EnvelopeWriter). */
export function envelopeBody(rows: string[], frame: PageFrame): Buffer {
  let units = rows.length;
  for (const row of rows) units += row.length;
  const writer = new EnvelopeWriter(units + (units >> 4));
  for (const row of rows) writer.add(row);
  return writer.finish(frame);
}
