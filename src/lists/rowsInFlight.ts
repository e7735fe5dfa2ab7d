/**
 * How many rows of big pages a process reads and renders at once; a big page past that waits
 * its turn (first come, first served) before its query runs. A 5000-row page lives as 5000 row
 * objects and strings, then a 2.6 MB body: sixteen of them at once keep sixteen such pages of
 * short-lived objects alive for the collector, whose pauses hold every other request, /health
 * too. The CPU is the limit either way, so fewer at once costs no throughput.
 */
export class RowsInFlight {
  readonly #limit: number;
  #inFlight = 0;
  readonly #waiting: Array<{ rows: number; start: () => void }> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Waits until `rows` more rows fit (a page bigger than the limit runs alone), then holds them until `release` is called. */
  async take(rows: number): Promise<() => void> {
    if (this.#waiting.length > 0 || (this.#inFlight > 0 && this.#inFlight + rows > this.#limit)) {
      await new Promise<void>((start) => this.#waiting.push({ rows, start }));
    } else {
      this.#inFlight += rows;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= rows;
      this.#startWaiting();
    };
  }

  #startWaiting(): void {
    while (this.#waiting.length > 0) {
      const next = this.#waiting[0];
      if (this.#inFlight > 0 && this.#inFlight + next.rows > this.#limit) return;
      this.#waiting.shift();
      this.#inFlight += next.rows;
      next.start();
    }
  }
}
