import { createHash } from 'node:crypto';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** A seeded random source for deterministic demo data. */
export class SeedRandom {
  readonly #rng;
  constructor(seedText: string) {
    const seed = createHash('sha256').update(seedText).digest().readInt32LE(0);
    this.#rng = xoroshiro128plus(seed);
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
    const total = choices.reduce((sum, [, w]) => sum + w, 0);
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
