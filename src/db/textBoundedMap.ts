/**
 * A cache of SQL texts (or of what is built from one) bounded by the text it keeps as well as by
 * its entries: list shapes differ in size by tens of times (a ranged list's deep page is ~20 KB
 * of SQL, a key lookup ~300 bytes), so a count of entries alone says little of the memory held.
 * Past either bound the oldest entries go (first in, first out): the memory stays at the bound
 * rather than dropping and climbing again, and a hit stays one map lookup (no reordering).
 */
export class TextBoundedMap<V> {
  readonly #entries = new Map<string, { value: V; chars: number }>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  /** `maxChars`: the characters of the texts kept (SQL is ASCII: a character is a byte). */
  constructor(maxEntries: number, maxChars: number) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Keeps `value` under `key`; `chars`: the text it keeps, the key's own included when that is a text of its own. */
  set(key: string, value: V, chars: number): void {
    const previous = this.#entries.get(key);
    if (previous) {
      this.#entries.delete(key);
      this.#chars -= previous.chars;
    }
    this.#entries.set(key, { value, chars });
    this.#chars += chars;
    // A Map iterates in insertion order: the oldest first.
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= entry.chars;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The characters of text kept now. */
  get chars(): number {
    return this.#chars;
  }
}

/**
 * A flat copy of `text`, to keep in a cache. Kysely builds SQL by appending a fragment at a
 * time, and V8 keeps such a string as a tree of its fragments (~50 KB of nodes for a 10 KB list
 * statement, heap snapshots of the soak) until something flattens it, which sending it to the
 * server does not always do. Costs one copy, on a cache miss.
 */
export function flatCopy(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
