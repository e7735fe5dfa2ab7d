import { createHash } from 'node:crypto';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';

/**
 * A seeded random source for deterministic demo data. The whole 128-bit state comes from the
 * seed text's SHA-256, so the many sources of one seed run (one per block of rows) do not
 * share a stream, as 32-bit seeds would by chance once there are tens of thousands of them.
 */
export class SeedRandom {
  readonly #rng;
  constructor(seedText: string) {
    const hash = createHash('sha256').update(seedText).digest();
    this.#rng = xoroshiro128plusFromState([hash.readInt32LE(0), hash.readInt32LE(4), hash.readInt32LE(8), hash.readInt32LE(12)]);
  }
  float(): number {
    return uniformFloat64(this.#rng);
  }
  int(from: number, to: number): number {
    return uniformInt(this.#rng, from, to);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }
  /** Picks by relative weight: `[['visa', 45], ['amex', 10]]`. */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, w] of choices) total += w;
    let roll = this.float() * total;
    for (const [value, weight] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return choices[choices.length - 1][0];
  }
  digits(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += String(this.int(0, 9));
    return out;
  }
}
