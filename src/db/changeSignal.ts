/**
 * Which tenants' writes just committed changes to be folded into the lists' counts
 * (lists/counters/countFolder.ts listens): the folder folds them soon after rather than on its sweep.
 */
export class ChangeSignal {
  readonly #listeners = new Set<(tenants: ReadonlySet<string>) => void>();

  listen(listener: (tenants: ReadonlySet<string>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  committed(tenants: ReadonlySet<string>): void {
    if (tenants.size === 0) return;
    for (const listener of this.#listeners) listener(tenants);
  }
}
