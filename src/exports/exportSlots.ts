import { Problem } from '../core/problem.ts';

/**
 * How many exports each API key runs at once. In-process: each instance counts its own (an
 * export holds a connection of that instance, which is what the limit protects).
 */
export class ExportSlots {
  readonly #running = new Map<string, number>();
  readonly perKey: number;

  constructor(perKey: number) {
    this.perKey = perKey;
  }

  /** Takes a slot for `key`, or throws a 429; the returned function gives it back (once). */
  take(key: string): () => void {
    const running = this.#running.get(key) ?? 0;
    if (running >= this.perKey) {
      throw new Problem('rate-limited', {
        detail: `This API key already runs ${running} ${running === 1 ? 'export' : 'exports'} (at most ${this.perKey} at once); retry when one has finished.`,
        headers: { 'retry-after': '5' },
      });
    }
    this.#running.set(key, running + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#running.get(key) ?? 1) - 1;
      if (left > 0) this.#running.set(key, left);
      else this.#running.delete(key);
    };
  }
}
